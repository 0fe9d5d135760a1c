#!/usr/bin/python3
"""scikit-learn's estimator checks (sklearn.utils.estimator_checks.check_estimator) on GPLVM and ProbDR.

Every check runs on GPLVM (SAS, small batches and encoder: the checks fit many tiny data sets). ProbDR
shares all of GPLVM's code but its parameters, so it runs the checks of parameters, fitting, scoring and
pickling, and leaves out those that only call transform many more times (SKIPPED_FOR_PROBDR: they test the
shared code GPLVM's run already covers, and each call starts the gplvm executable). Its latent_dim is 1 with
a fixed noise: the checks' data have one or two columns, and a Wishart model with as many latent
dimensions as columns has no discarded eigenvalues to estimate its noise from (gplvm refuses that, exit 2).

usage: /usr/bin/python3 tests/python/test_estimator_checks.py GPLVM_EXECUTABLE
"""

import warnings

from common import GPLVM, run_tests
from sklearn.utils.estimator_checks import check_estimator

from gplvm_hpc import GPLVM as Estimator
from gplvm_hpc import ProbDR

SKIPPED_FOR_PROBDR = {
    "check_methods_subset_invariance": "transform row by row: the shared transform, checked on GPLVM",
    "check_methods_sample_order_invariance": "the shared transform, checked on GPLVM",
    "check_estimators_dtypes": "the shared input conversion, checked on GPLVM",
    "check_dtype_object": "the shared input conversion, checked on GPLVM",
    "check_transformer_data_not_an_array": "the shared input conversion, checked on GPLVM",
    "check_pipeline_consistency": "the shared fit and score, checked on GPLVM",
}


def check_name(check):
    return getattr(check, "func", check).__name__


def run_checks(estimator, skipped=None):
    """Runs every check but the skipped ones (each must be one check_estimator yields); returns how many ran."""
    skipped = skipped or {}
    checks = list(check_estimator(estimator, generate_only=True))
    names = {check_name(check) for _, check in checks}
    assert set(skipped) <= names, f"skipped checks that do not exist: {set(skipped) - names}"
    ran = 0
    for instance, check in checks:
        if check_name(check) in skipped:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the checks' own FutureWarnings; failures still raise
            check(instance)
        ran += 1
    return ran


def test_gplvm_passes_every_check(tmp):
    model = Estimator(epochs=1, config={"sas.batch_size": 4, "sas.active_size": 2, "model.encoder_hidden": [4]},
                      executable=GPLVM)
    assert run_checks(model) >= 30


def test_probdr_passes_the_checks_of_its_own_code(tmp):
    model = ProbDR(latent_dim=1, config={"probdr.fixed_noise": 0.01}, executable=GPLVM)
    assert run_checks(model, SKIPPED_FOR_PROBDR) >= 25


if __name__ == "__main__":
    run_tests(test_gplvm_passes_every_check, test_probdr_passes_the_checks_of_its_own_code)
