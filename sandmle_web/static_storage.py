"""Static files under hashed names: `collectstatic` writes them with a manifest, WhiteNoise serves them compressed
and immutable (a year's cache), so a chart page's 4.8 MB of plotly.js reach a browser once per plotly version."""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StudioStaticStorage(CompressedManifestStaticFilesStorage):
    # Before `collectstatic` (tests, a checkout served by runserver) there is no manifest: pages name the plain file,
    # which the staticfiles finders serve. After it, a file missing from the manifest is still an error.
    manifest_strict = False

    def stored_name(self, name: str) -> str:
        if not self.hashed_files:
            return name
        return super().stored_name(name)
