"""Normalizations and losses of the torch stand-in against torch: batch norm in training mode (batch
statistics, running statistics updated in place) and eval mode, layer/group/instance/RMS norm, normalize;
every loss with its reductions."""
from __future__ import annotations

import pytest

from kb_compare import Arg, compare  # tests/kernelbench/kb_compare.py


def test_batch_norm_training_updates_running_statistics_like_torch():
    def fn(t, x, rm, rv, w, b):
        rm, rv = rm.clone(), rv.abs() + 0.5
        y = t.nn.functional.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2, eps=1e-3)
        return y, rm, rv
    compare(fn, Arg((4, 3, 2, 2)), Arg((3,)), Arg((3,)), Arg((3,)), Arg((3,)))


def test_batch_norm_eval_uses_running_statistics_like_torch():
    compare(lambda t, x, rm, rv: t.nn.functional.batch_norm(x, rm, rv.abs() + 0.5, training=False),
            Arg((4, 3)), Arg((3,)), Arg((3,)))


@pytest.mark.parametrize("shape,normalized", [((2, 3, 4), (4,)), ((2, 3, 4), (3, 4)), ((5, 6), (6,))])
def test_layer_norm_matches_torch(shape, normalized):
    compare(lambda t, x, w, b: (t.nn.functional.layer_norm(x, normalized, w, b, eps=1e-3),
                                t.nn.functional.layer_norm(x, normalized)), Arg(shape), Arg(normalized),
            Arg(normalized))


def test_group_instance_rms_norm_and_normalize_match_torch():
    compare(lambda t, x, w, b: (t.nn.functional.group_norm(x, 2, w, b), t.nn.functional.group_norm(x, 4),
                                t.nn.functional.instance_norm(x, weight=w, bias=b),
                                t.nn.functional.rms_norm(x, (3, 3), eps=1e-4), t.nn.functional.rms_norm(x, (3,)),
                                t.nn.functional.normalize(x, dim=1), t.nn.functional.normalize(x, p=1, dim=-1)),
            Arg((2, 4, 3, 3)), Arg((4,)), Arg((4,)))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_regression_losses_match_torch(reduction):
    compare(lambda t, x, y: (t.nn.functional.mse_loss(x, y, reduction=reduction),
                             t.nn.functional.l1_loss(x, y, reduction=reduction),
                             t.nn.functional.smooth_l1_loss(x, y, reduction=reduction, beta=0.5),
                             t.nn.functional.huber_loss(x, y, reduction=reduction, delta=0.7)),
            Arg((4, 5)), Arg((4, 5)))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_with_class_targets_matches_torch(reduction):
    compare(lambda t, x, y, w: (t.nn.functional.cross_entropy(x, y, reduction=reduction),
                                t.nn.functional.cross_entropy(x, y, weight=w.abs() + 0.1, reduction=reduction),
                                t.nn.functional.cross_entropy(x, y, label_smoothing=0.1, reduction=reduction),
                                t.nn.functional.nll_loss(x.log_softmax(1), y, reduction=reduction)),
            Arg((5, 4)), Arg((5,), "int", 0, 4), Arg((4,)))


def test_cross_entropy_over_spatial_targets_and_probabilities_matches_torch():
    compare(lambda t, x, y, p: (t.nn.functional.cross_entropy(x, y),
                                t.nn.functional.cross_entropy(x[:, :, 0], p.softmax(1))),
            Arg((2, 3, 4)), Arg((2, 4), "int", 0, 3), Arg((2, 3)))


def test_kl_div_matches_torch():
    compare(lambda t, x, y: (t.nn.functional.kl_div(x.log_softmax(-1), y.softmax(-1), reduction="batchmean"),
                             t.nn.functional.kl_div(x, y, reduction="sum", log_target=True),
                             t.nn.functional.kl_div(x.log(), t.where(y > 0, y, 0.0), reduction="mean")),
            Arg((3, 4), lo=0.1, hi=2), Arg((3, 4)))


def test_margin_and_similarity_losses_match_torch():
    compare(lambda t, a, p, n, s: (t.nn.functional.triplet_margin_loss(a, p, n),
                                   t.nn.functional.triplet_margin_loss(a, p, n, margin=0.3, p=1, swap=True),
                                   t.nn.functional.cosine_similarity(a, p), t.cosine_similarity(a, n, dim=0),
                                   t.nn.functional.pairwise_distance(a, n),
                                   t.nn.functional.hinge_embedding_loss(a, t.where(s, 1.0, -1.0)),
                                   t.nn.functional.cosine_embedding_loss(a, p, t.where(s[:, 0], 1.0, -1.0)),
                                   t.nn.functional.margin_ranking_loss(a[:, 0], p[:, 0], t.where(s[:, 0], 1.0, -1.0)),
                                   t.nn.functional.soft_margin_loss(a, t.where(s, 1.0, -1.0)),
                                   t.mean(t.clamp(1 - a * t.where(s, 1.0, -1.0), min=0))),
            Arg((4, 3)), Arg((4, 3)), Arg((4, 3)), Arg((4, 3), "bool"))


def test_binary_cross_entropy_matches_torch():
    compare(lambda t, x, y: (t.nn.functional.binary_cross_entropy(x.sigmoid(), y.sigmoid()),
                             t.nn.functional.binary_cross_entropy_with_logits(x, y.sigmoid(), reduction="sum")),
            Arg((3, 4)), Arg((3, 4)))


def test_loss_modules_match_torch():
    compare(lambda t, x, y, c: (t.nn.MSELoss()(x, y), t.nn.CrossEntropyLoss()(x, c), t.nn.SmoothL1Loss(beta=0.2)(x, y),
                                t.nn.HuberLoss(delta=2.0)(x, y), t.nn.KLDivLoss(reduction="batchmean")(x, y.softmax(1)),
                                t.nn.TripletMarginLoss(margin=0.5)(x, y, x * 2), t.nn.CosineSimilarity(dim=0)(x, y)),
            Arg((3, 4)), Arg((3, 4)), Arg((3,), "int", 0, 4))


# ---- a difference of rounding names its constant (compare.rounding_note) ------------------------------------

EPS_PROBLEM = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.InstanceNorm2d(2)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(1, 2, 2, 2)]


def get_init_inputs():
    return []
'''

EPS_CANDIDATE = '''
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        mean = x.mean(dim=(2, 3), keepdim=True)
        var = ((x - mean) ** 2).mean(dim=(2, 3), keepdim=True)
        return (x - mean) / torch.sqrt({eps})
'''


@pytest.mark.parametrize("eps,named", [("(var.double() + 1e-5).float()", True), ("var + 1e-4", False)])
def test_an_eps_held_in_double_is_named_with_both_values(tmp_path, eps, named):
    """torch adds InstanceNorm's eps as float32's 1e-5; a candidate adding 1e-5 in double differs over the reals
    by 9e-10 relative: NOT EQUIVALENT, with a note naming the constant, both values and precisions. An eps that
    is another number (1e-4) is no rounding and gets no such note."""
    from volta.kernelbench.check import check
    (tmp_path / "problem.py").write_text(EPS_PROBLEM)
    (tmp_path / "cand.py").write_text(EPS_CANDIDATE.format(eps=eps))
    r = check(str(tmp_path / "problem.py"), str(tmp_path / "cand.py"))
    assert r.verdict == "not-equivalent"
    note = r.comparison.difference.note
    if named:
        assert "the constant 9.999999747378752e-06 in the reference is 1e-05 in the candidate" in note, note
        assert "float32 and float64" in note and "below float32's resolution" in note, note
    else:
        assert note is None, note


FOLDED_PROBLEM = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.nn.functional.mish(x - 0.5 - 0.2)


def get_inputs():
    return [torch.randn(2, 4)]


def get_init_inputs():
    return []
'''


def test_two_constants_folded_into_one_are_named(tmp_path):
    """x - 0.5 - 0.2 in float32 subtracts 0.5 + float32's 0.2; a candidate's x - 0.7 subtracts float32's 0.7, the
    rounding of that sum: a different real, named in the note with the two constants it folds."""
    from volta.kernelbench.check import check
    (tmp_path / "problem.py").write_text(FOLDED_PROBLEM)
    (tmp_path / "cand.py").write_text(FOLDED_PROBLEM.replace("class Model", "class ModelNew")
                                      .replace("x - 0.5 - 0.2", "x - (0.5 + 0.2)"))
    r = check(str(tmp_path / "problem.py"), str(tmp_path / "cand.py"))
    assert r.verdict == "not-equivalent"
    note = r.comparison.difference.note
    assert "0.699999988079071 is the float32 rounding of -0.5 + -0.20000000298023224" in note, note


def test_rounding_note_reads_certified_values():
    """The relative difference is taken between exact values or the midpoints of certified enclosures."""
    from fractions import Fraction

    from volta.kernelbench.compare import rounding_note
    from volta.symbolic import expr as E
    from volta.symbolic.enclose import Enclosure
    x = E.var("x", 0)
    close = Enclosure(Fraction(21) + Fraction(1, 10**12), Fraction(21) + Fraction(2, 10**12))
    assert "below float32's resolution" in rounding_note(x, E.add(x, 1), Fraction(21), close)
    assert rounding_note(x, E.add(x, 1), Fraction(21), Fraction(22)) is None
    assert rounding_note(x, x, Fraction(21), "undefined") is None


def test_the_rounding_note_reaches_the_command_s_report_where_the_difference_is_exact(tmp_path, capsys):
    """Without mish the reference's value at the witness is exact, so Volta's process confirms the difference
    itself (`confined._confirmed`); the note naming the folded constants is in its text and JSON all the same."""
    import json

    from volta.cli import run as cli
    problem = FOLDED_PROBLEM.replace("torch.nn.functional.mish(x - 0.5 - 0.2)", "x - 0.5 - 0.2")
    (tmp_path / "problem.py").write_text(problem)
    (tmp_path / "cand.py").write_text(problem.replace("class Model", "class ModelNew")
                                      .replace("x - 0.5 - 0.2", "x - (0.5 + 0.2)"))
    code = cli(["kernelbench", str(tmp_path / "problem.py"), str(tmp_path / "cand.py"), "--json", "-q"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and report["verdict"] == "not-equivalent"
    assert "is the float32 rounding of" in (report["counterexample"].get("note") or ""), report["counterexample"]
    code = cli(["kernelbench", str(tmp_path / "problem.py"), str(tmp_path / "cand.py"), "-q"])
    assert code == 1 and "note: " in capsys.readouterr().out
