"""The anchor of bench_tuning: Optuna's default TPESampler and its RandomSampler on the same
test functions, ranges, evaluation counts and seeds as our searches. Prints one JSON object with
the simple regret (best value found minus the known optimum) of every run, the seed it ran with
and how many trials it completed (the bench checks both against its own budget).

  build/pytools/bin/python optuna_anchor.py --seeds 20 --evals 50
"""
import argparse
import json
import math
import time

import optuna

HARTMANN_A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14],
              [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]]
HARTMANN_P = [[0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886],
              [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
              [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650],
              [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381]]
HARTMANN_ALPHA = [1.0, 1.2, 3.0, 3.2]
# The mixed function's categorical choices: scale, centre and offset of a 2-d quadratic.
MIXED = {"a": (1.0, 1.0, -1.0, 0.5), "b": (2.0, -2.0, 2.0, 0.0), "c": (0.5, 3.0, 3.0, 1.0)}


def branin(t):
    x1 = t.suggest_float("x1", -5, 10)
    x2 = t.suggest_float("x2", 0, 15)
    b, c = 5.1 / (4 * math.pi ** 2), 5 / math.pi
    return (x2 - b * x1 ** 2 + c * x1 - 6) ** 2 + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x1) + 10


def hartmann6(t):
    x = [t.suggest_float(f"x{i}", 0, 1) for i in range(6)]
    total = 0.0
    for a, p, alpha in zip(HARTMANN_A, HARTMANN_P, HARTMANN_ALPHA):
        total += alpha * math.exp(-sum(a[j] * (x[j] - p[j]) ** 2 for j in range(6)))
    return -total


def rosenbrock4(t):
    x = [t.suggest_float(f"x{i}", -2, 2) for i in range(4)]
    return sum(100 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2 for i in range(3))


def mixed(t):
    c = t.suggest_categorical("c", ["a", "b", "c"])
    x1 = t.suggest_float("x1", -5, 5)
    x2 = t.suggest_float("x2", -5, 5)
    n = t.suggest_int("n", 1, 10)
    s, a, b, o = MIXED[c]
    return s * ((x1 - a) ** 2 + (x2 - b) ** 2) / 10 + o + 0.1 * (n - 4) ** 2


FUNCTIONS = {"branin": (branin, 0.397887357729739), "hartmann6": (hartmann6, -3.32236801141551),
             "rosenbrock4": (rosenbrock4, 0.0), "mixed": (mixed, 0.0)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--evals", type=int, default=50)
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    samplers = {"tpe": lambda s: optuna.samplers.TPESampler(seed=s),
                "random": lambda s: optuna.samplers.RandomSampler(seed=s)}
    out = {"optuna": optuna.__version__, "seeds": args.seeds, "evals": args.evals,
           "functions": {}}
    for name, (f, optimum) in FUNCTIONS.items():
        entry = {}
        for sampler_name, make in samplers.items():
            regrets, trials, seeds, start = [], [], [], time.perf_counter()
            for seed in range(args.seeds):
                study = optuna.create_study(direction="minimize", sampler=make(seed))
                study.optimize(f, n_trials=args.evals)
                regrets.append(study.best_value - optimum)
                complete = optuna.trial.TrialState.COMPLETE
                trials.append(len(study.get_trials(deepcopy=False, states=(complete,))))
                seeds.append(seed)
            entry[sampler_name] = {"regrets": regrets, "trials": trials, "seed_values": seeds,
                                   "seconds": time.perf_counter() - start}
        out["functions"][name] = entry
    print(json.dumps(out))


if __name__ == "__main__":
    main()
