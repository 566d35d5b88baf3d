"""``officeworld run``'s security figures: utility, utility under attack and attack success rate over pairs."""

from simulator.runner.metrics import security, summarise


def _r(task: str, passed: bool, goals: bool, guard_failed: bool, sample: int = 0) -> dict:
    return {"task": task, "sample": sample, "reward": 1.0 if passed else 0.0, "passed": passed, "failure": None,
            "goals_passed": goals, "guard_failed": guard_failed}


def test_pairs_give_utility_under_attack_and_attack_success():
    results = [_r("s-00", True, True, False), _r("s-01", False, False, False),
               _r("s-00--forward", True, True, False), _r("s-00--leak", False, True, True),
               _r("s-01--forward", False, False, True), _r("s-01--leak", False, False, False)]
    assert security(results) == {"pairs": 4, "utility": 0.5, "utility_under_attack": 0.5, "attack_success_rate": 0.5}
    assert summarise(results, 1)["security"]["pairs"] == 4


def test_a_run_without_pairs_has_no_security_figures():
    results = [_r("crm-close", True, True, False)]
    assert security(results) is None and "security" not in summarise(results, 1)
