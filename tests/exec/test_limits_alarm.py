"""The --timeout alarm (volta/exec/limits.py) reaches Volta's code as a Timeout, never as another exception made
of it by a library in between."""
import pytest
from mpmath import iv

from volta.exec import limits
from volta.exec.limits import Timeout


def test_the_alarm_waits_until_a_swallowing_library_has_returned():
    """mpmath's interval comparison converts its operand under a bare `except:` and answers NotImplemented, so a
    Timeout raised inside it came out as `TypeError: '<=' not supported between 'ivmpf' and 'int'` (an internal
    error where the out-of-time verdict belongs). The loop spends nearly all its time in there: the alarm must
    still come out as the Timeout, soon after the deadline (eight times: one alarm may land between two calls)."""
    x = iv.mpf([1, 2])
    for _ in range(8):
        with pytest.raises(Timeout):
            with limits.using(timeout=0.02):
                while True:
                    assert not x.a <= 0
