"""The pieces of train.py --compile that run without a GPU: the filled weight cache gives the
same outputs and gradients as the lazily filled one, and the refusals. (The compiled graph
itself needs torch >= 2 and a GPU: scripts/check_compile.py.)"""
import contextlib
import io
import os
import sys
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import check_compile  # noqa: E402
from swinup import quant  # noqa: E402
from swinup.model import SwinUp  # noqa: E402
from swinup.spec import SLOTS, ModelConfig  # noqa: E402
from swinup.quant import round_e4m3  # noqa: E402


def frame_pass(model, staged, frame_index, fill):
    model.zero_grad(set_to_none=True)
    with model.weight_cache():
        if fill:
            model.fill_weight_cache()
            filled = len(model._quantised)
        else:
            filled = None
        head = model.run(staged, frame_index)
    head.square().sum().backward()
    return head.detach(), {n: p.grad.clone() for n, p in model.params.items() if p.grad is not None}, filled


class CompiledForwardPieces(unittest.TestCase):
    def setUp(self):
        self.model = SwinUp(ModelConfig.make("lite"))
        self.model.init_seeded(11)
        g = torch.Generator().manual_seed(2)
        self.staged = round_e4m3(torch.randn(1, 32, 32, SLOTS, generator=g))

    def test_filled_cache_equals_lazy_cache(self):
        for k in (0, 1, 2, 3):
            lazy_head, lazy_grad, _ = frame_pass(self.model, self.staged, k, fill=False)
            head, grad, filled = frame_pass(self.model, self.staged, k, fill=True)
            self.assertTrue(torch.equal(head, lazy_head))
            self.assertEqual(set(grad), set(lazy_grad))
            for name in grad:
                self.assertTrue(torch.equal(grad[name], lazy_grad[name]), name)
        # Every e4m3 weight and every bias table of the lite network is in the cache.
        specs = self.model.specs
        expected = sum(1 for s in specs if s.dtype == "F8_E4M3" or s.name.endswith(".rel_bias"))
        self.assertEqual(filled, expected)

    def test_frame_parity_is_all_the_forward_sees_of_the_frame_index(self):
        # run() hands a compiled forward only the parity; the eager forward must agree.
        with torch.no_grad(), self.model.weight_cache():
            for k in (2, 3):
                self.assertTrue(torch.equal(self.model(self.staged, k), self.model(self.staged, k % 2)))
            self.assertFalse(torch.equal(self.model(self.staged, 0), self.model(self.staged, 1)))

    def test_fill_outside_a_cache_is_refused(self):
        with self.assertRaisesRegex(RuntimeError, "no weight_cache is open"):
            self.model.fill_weight_cache()

    def test_exact_mode_is_not_compiled(self):
        with self.assertRaisesRegex(ValueError, "exact mode"):
            SwinUp(ModelConfig.make("lite"), exact=True).compile_forward()

    @unittest.skipIf(hasattr(torch, "compile"),
                     "checks the refusal by a torch without torch.compile; this one has it")
    def test_old_torch_is_refused_by_name(self):
        with self.assertRaisesRegex(RuntimeError, r"torch >= 2\.0"):
            self.model.compile_forward()


class OpChecks(unittest.TestCase):
    """check_compile.py --ops, run with an identity "compiler": every piece it compares is fed
    the eager forward's own intermediate values, so every comparison must find no difference, and
    every block of the variant must be among them."""

    def test_identity_compiler_finds_no_difference(self):
        for variant in ("lite", "full"):
            results = check_compile.op_checks(variant, 1, 64, torch.device("cpu"), lambda fn: fn)
            names = [name for name, _, _ in results]
            blocks = [blk.name for blk in ModelConfig.make(variant).blocks()]
            self.assertEqual(names, ["round_e4m3", "round_f16", blocks[0] + ".norm1"] + blocks)
            for name, share, largest in results:
                self.assertEqual((share, largest), (0.0, 0.0), f"{variant} {name}")

    def test_a_changed_piece_is_found(self):
        def dropping_roundings(fn):  # a "compiler" that loses the e4m3 rounding, as a bad graph would
            if fn is quant.round_e4m3:
                return lambda x: x
            return fn
        results = dict((n, s) for n, s, _ in check_compile.op_checks("lite", 1, 64, torch.device("cpu"),
                                                                     dropping_roundings))
        self.assertGreater(results["round_e4m3"], 0.5)
        self.assertEqual(results["round_f16"], 0.0)


class WholeForwardCheck(unittest.TestCase):
    """check_compile.check on the CPU with stand-in "compilers": the eager forward itself passes
    (no difference at all, well inside exact mode's gradient gap), and a forward with one relative-
    position bias table changed, as a wrong graph would compute, fails."""

    def run_check(self, compile_fn):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ok = check_compile.check("lite", 1, 32, torch.device("cpu"), [0, 1], compile_fn, time_it=False)
        return ok, out.getvalue()

    def test_an_identical_forward_passes(self):
        ok, log = self.run_check(lambda model: None)
        self.assertTrue(ok, log)
        self.assertIn("largest relative difference 0 ", log)

    def test_a_wrong_bias_table_fails(self):
        def wrong(model):  # not a constant: softmax would not see a shift of the whole table
            table = model.p("tube1.rel_bias")
            with torch.no_grad():
                table.add_(torch.randn(table.shape, generator=torch.Generator().manual_seed(5)))
        ok, log = self.run_check(wrong)
        self.assertFalse(ok, log)
        self.assertIn("FAILED", log)


if __name__ == "__main__":
    unittest.main()
