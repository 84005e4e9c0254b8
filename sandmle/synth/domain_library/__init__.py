"""The domain library: every target domain a seed can be mutated into, by modality and task type."""

from sandmle.synth.domain_library.base import Domain, domain
from sandmle.synth.domain_library.classification import CLASSIFICATION_DOMAINS
from sandmle.synth.domain_library.image import IMAGE_DOMAINS
from sandmle.synth.domain_library.regression import REGRESSION_DOMAINS
from sandmle.synth.domain_library.text import TEXT_DOMAINS

DOMAINS: list[Domain] = [*CLASSIFICATION_DOMAINS, *REGRESSION_DOMAINS, *IMAGE_DOMAINS, *TEXT_DOMAINS]

__all__ = ["DOMAINS", "Domain", "domain"]
