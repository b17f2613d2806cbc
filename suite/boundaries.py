"""Group-sequential boundaries: how much α each look may spend, and the boundary that spends it (Lan–DeMets).

Standard library only (suite/ is shared by the sweep and the analysis).
"""

# A comparison's z-statistic at look k, with information fraction t_k (rounds so far ÷ the most rounds), has
# independent increments, so the chance of first crossing ±c_k at look k is a recursion over the looks before
# (Armitage, McPherson & Rowe 1969), integrated here on a grid. Lan & DeMets (1983) spend α over t: each boundary
# is set so that the chance of a first crossing at look k is α(t_k) − α(t_{k−1}).

import math

GRID = 121  # points of the recursion's grid across a look's continuation region (odd: Simpson's rule)


def phi(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def z_two_sided(alpha: float) -> float:
    """z with P(|Z| ≥ z) = alpha, by bisection."""
    low, high = 0.0, 40.0
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if 2 * (1 - phi(mid)) > alpha else (low, mid)
    return (low + high) / 2


def spent(t: float, alpha: float, spending: str) -> float:
    """The α spent by information fraction t (0–1): Lan–DeMets' Pocock-like α·ln(1 + (e − 1)t) or
    O'Brien–Fleming-like 2 − 2Φ(z_{α/2} / √t)."""
    t = min(max(t, 0.0), 1.0)
    if t == 0:
        return 0.0
    if spending == "pocock":
        return alpha * math.log(1 + (math.e - 1) * t)
    if spending == "obf":
        return 2 - 2 * phi(z_two_sided(alpha) / math.sqrt(t))
    if spending.startswith("hsd"):  # Hwang, Shih & DeCani (1990): γ = -4 is near O'Brien–Fleming, 1 near Pocock
        gamma = float(spending[3:])
        return alpha * t if gamma == 0 else alpha * (1 - math.exp(-gamma * t)) / (1 - math.exp(-gamma))
    raise ValueError(f"unknown spending function {spending!r}")


def _simpson(values: list[float], h: float) -> float:
    n = len(values) - 1
    return h / 3 * (values[0] + values[-1] + 4 * sum(values[1:n:2]) + 2 * sum(values[2:n - 1:2]))


class Boundaries:
    """The boundaries of looks added one at a time: each from the looks before it and the α it may spend."""

    def __init__(self) -> None:
        self.fractions: list[float] = []
        self.values: list[float] = []  # the boundaries c_k on the z scale
        self.cumulative: list[float] = []  # α spent by each look
        self._grid: list[float] = []  # the score S = Z·√t on the last look's continuation region …
        self._density: list[float] = []  # … and its density there, with no crossing so far

    def add(self, t: float, alpha_by_now: float) -> float:
        """The boundary of a look at fraction t (> the last) that brings the α spent to alpha_by_now."""
        spend = max(alpha_by_now - (self.cumulative[-1] if self.cumulative else 0.0), 0.0)
        if not self.values:
            c = z_two_sided(spend) if spend > 0 else math.inf
        elif spend <= 0:
            c = math.inf
        else:
            c = self._solve(t, spend)
        self._advance(t, c)
        self.fractions.append(t)
        self.values.append(c)
        self.cumulative.append((self.cumulative[-1] if self.cumulative else 0.0) + spend)
        return c

    def _crossing(self, t: float, c: float) -> float:
        """P(no crossing before, |Z| ≥ c at fraction t)."""
        step = math.sqrt(t - self.fractions[-1])
        edge = c * math.sqrt(t)
        h = self._grid[1] - self._grid[0]
        outside = [f * (phi((-edge - s) / step) + 1 - phi((edge - s) / step)) for s, f in zip(self._grid, self._density)]
        return _simpson(outside, h)

    def _solve(self, t: float, spend: float) -> float:
        low, high = 0.0, 40.0
        if self._crossing(t, high) >= spend:
            return high
        for _ in range(60):
            mid = (low + high) / 2
            low, high = (mid, high) if self._crossing(t, mid) > spend else (low, mid)
        return (low + high) / 2

    def _advance(self, t: float, c: float) -> None:
        """The density of S at fraction t on |S| < c√t, none of the looks so far crossed."""
        edge = min(c, 12.0) * math.sqrt(t)
        grid = [-edge + 2 * edge * i / (GRID - 1) for i in range(GRID)]
        if not self._grid:
            sd = math.sqrt(t)
            density = [math.exp(-s * s / (2 * t)) / (sd * math.sqrt(2 * math.pi)) for s in grid]
        else:
            step = math.sqrt(t - self.fractions[-1])
            h = self._grid[1] - self._grid[0]
            norm = 1 / (step * math.sqrt(2 * math.pi))
            density = [_simpson([f * norm * math.exp(-((s - u) / step) ** 2 / 2)
                                 for u, f in zip(self._grid, self._density)], h) for s in grid]
        self._grid, self._density = grid, density


def boundaries(fractions, alpha: float, spending: str) -> list[float]:
    """The boundaries (z) of looks at these information fractions, the last normally 1."""
    found = Boundaries()
    return [found.add(t, spent(t, alpha, spending)) for t in fractions]


def level(boundary: float) -> float:
    """The confidence of a look's interval: 1 − P(|Z| ≥ boundary)."""
    return 1.0 if math.isinf(boundary) else 1 - 2 * (1 - phi(boundary))
