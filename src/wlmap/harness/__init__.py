"""Definition test cases: objects with the view fields they must produce, run and compared."""

from wlmap.harness.cases import Case, load_cases
from wlmap.harness.compare import Mismatch, compare
from wlmap.harness.runner import CaseResult, run_case, run_cases

__all__ = ["Case", "CaseResult", "Mismatch", "compare", "load_cases", "run_case", "run_cases"]
