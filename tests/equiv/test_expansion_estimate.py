"""check._expansion: the estimate that decides whether a few random inputs are tried before normalizing.
A ratio's numerator and denominator are counted apart (attention's sum/sum is not a product); products
of sums still count as products (a two-pass variance stays large)."""
from fractions import Fraction as F

from volta.equiv import check as C
from volta.symbolic import expr as E


def _product_estimate(root):
    """The earlier estimate: sums add, products and ratios multiply, atoms count one."""
    memo = {}
    for n in E.postorder(root):
        if n.op is E.ADD:
            memo[n] = sum(memo[x] for x in n.args)
        elif n.op in (E.MUL, E.DIV):
            v = 1
            for x in n.args:
                v *= memo[x]
            memo[n] = v
        else:
            memo[n] = 1
    return memo[root]


def test_variance_is_large_and_attention_is_not():
    x = [E.var("Xe", i) for i in range(256)]
    mean = E.mul(E.add_all(x), E.const(F(1, 256)))
    var = E.add_all(E.mul(E.sub(xi, mean), E.sub(xi, mean)) for xi in x)
    assert C._expansion(var) > C.LARGE_EXPANSION
    s = [E.exp2(E.mul(E.var("Se", k), E.const(F(3, 2)))) for k in range(256)]
    num = E.add_all(E.mul(p, E.var("Ve", k)) for k, p in enumerate(s))
    ref = E.div(num, E.add_all(s))                      # sum_k p_k V_k / sum_k p_k
    opt = E.mul(num, E.div(E.ONE, E.add_all(s)))        # acc * (1 / l)
    assert _product_estimate(ref) == 256 * 256 > C.LARGE_EXPANSION
    assert C._expansion(ref) == 512 and C._expansion(opt) == 512
    assert C._expansion(ref, opt) == 512


def test_small_ratios_stay_near_the_product_estimate():
    a, b, c = (E.var("Pe", i) for i in range(3))
    terms = [a + b, (a + b) * (b + c), (a + 1) / (b + c + a), ((a + b) / c) / ((b + 1) / (a + c)),
             (a / b + c / a) * (b + c), E.maximum(a, b) / (a * b + c), ((a + b) / (c + 1)) * ((a + c) / (b + 1))]
    for t in terms:
        assert C._expansion(t) <= 2 * _product_estimate(t) + 2, t


def test_an_atom_counts_the_normalization_of_its_arguments():
    """rsqrt of a variance is one term, but its argument is normalized too: the element is large."""
    x = [E.var("Xa", i) for i in range(256)]
    mean = E.mul(E.add_all(x), E.const(F(1, 256)))
    var = E.add_all(E.mul(E.sub(xi, mean), E.sub(xi, mean)) for xi in x)
    y = E.mul(E.sub(x[0], mean), E.rsqrt(var))
    assert C._expansion(y) >= C._expansion(var) > C.LARGE_EXPANSION
    assert C._expansion(E.mul(x[0], E.rsqrt(x[1]))) == 1
