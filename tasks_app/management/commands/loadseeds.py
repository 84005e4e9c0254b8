"""`manage.py loadseeds`: stores the bundled seeds (scikit-learn's shipped datasets) with their DNA."""

from django.core.management.base import BaseCommand

from tasks_app.seeds.services import seeds_load_bundled


class Command(BaseCommand):
    help = "Store the bundled seeds and their task DNA (idempotent)."

    def handle(self, *args, **options):
        created = seeds_load_bundled()
        self.stdout.write(f"seeds added: {', '.join(seed.name for seed in created) or 'none (all present)'}")
