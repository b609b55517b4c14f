"""The independent side of test_tune_gp: scikit-learn's GaussianProcessRegressor with
ConstantKernel * Matern(nu=2.5, ARD length scales) + WhiteKernel, fixed hyperparameters
(optimizer=None, alpha=0), and the closed-form expected improvement; then the same kernel fitted
by scikit-learn's own optimiser for the fitted-likelihood check. Reads the cases as JSON on stdin
and prints the results as JSON.
"""
import json
import sys

import numpy as np
from scipy.stats import norm
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

BOUNDS = {"length": (1e-2, 1e2), "signal": (1e-2, 1e2), "noise": (1e-6, 1.0)}


def kernel(length_scales, signal, noise, fixed):
    bounds = "fixed" if fixed else None
    return (ConstantKernel(signal, bounds or BOUNDS["signal"])
            * Matern(length_scale=length_scales, nu=2.5,
                     length_scale_bounds=bounds or BOUNDS["length"])
            + WhiteKernel(noise, bounds or BOUNDS["noise"]))


def run(case):
    x, y = np.array(case["x"]), np.array(case["y"])
    points = np.array(case["points"])
    fixed = GaussianProcessRegressor(kernel(case["length_scales"], case["signal"], case["noise"],
                                            True), optimizer=None, alpha=0.0)
    fixed.fit(x, y)
    mean, std = fixed.predict(points, return_std=True)
    # predict's variance includes the WhiteKernel's noise; EI is on the latent function.
    latent = np.sqrt(np.maximum(std ** 2 - case["noise"], 0.0))
    z = (mean - case["best"]) / latent
    ei = latent * (z * norm.cdf(z) + norm.pdf(z))
    fitted = GaussianProcessRegressor(kernel([1.0] * x.shape[1], 1.0, 1e-2, False), alpha=0.0,
                                      n_restarts_optimizer=10, random_state=0)
    fitted.fit(x, y)
    return {"mean": mean.tolist(), "std": std.tolist(), "ei": ei.tolist(),
            "lml": float(fixed.log_marginal_likelihood_value_),
            "fitted_lml": float(fitted.log_marginal_likelihood_value_)}


def main():
    cases = json.load(sys.stdin)["cases"]
    print(json.dumps({"cases": [run(c) for c in cases]}))


if __name__ == "__main__":
    main()
