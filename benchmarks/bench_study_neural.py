"""ML-ARAM and MLTSVM fit (+ predict): mlbench against scikit-multilearn-ng or 0.2.0 (patched for
current NumPy/SciPy in tests/methods/skml_adapt_ref.py), CPU time and peak memory, on a larger study set.

Data: corel5k from the mirror (5000 x 499, 374 labels; MLBENCH_MIRROR must be set), or with
``--quick`` a small synthetic set.  Split: a seeded 2/3 : 1/3 holdout; features min-max scaled on
the training part and clipped to [0, 1] (as the study's protocol scales them), so neither MLARAM
rescales.  The study's configurations: MLARAM vigilance 0.9, threshold 0.02 (predictions checked
identical); MLTSVM c_k = 1, lambda = 1, sor_omega = 0.2, SOR threshold 0.2.  scikit-multilearn's
MLTSVM runs with only its version incompatibility patched and the negatives of label k (not of
label 1, its bug) so that both solve problems of the same size; its SOR differs from mlbench's
(see mlbench/methods/svm/mltsvm.py), so only the agreement of the predictions is printed.  MLTSVM
runs on the first ``--mltsvm-labels`` labels (default 40) to keep the reference's time bounded;
the time of both grows linearly in the labels (with 40 labels the reference takes about 200 CPU s
per call).  Measured (one round, a loaded 2-core machine): MLARAM 2.4x CPU, identical predictions,
peak 76 vs 73 MB; MLTSVM 97x CPU on 40 labels, peak 68 vs 205 MB (2 labels).

Timing: benchmarks/_harness.py (interleaved rounds after warm-up, one BLAS thread, CPU and wall
medians, ratio reference / mlbench).  Peak memory: one extra call per side under ``tracemalloc``
(the peak of Python and NumPy allocations during that call).  Usage::

    MLBENCH_MIRROR=/path/to/mirror python benchmarks/bench_study_neural.py [--repeats 3]

``--only clems`` times CLEMS's label embedding (#45 item 5): the general weighted SMACOF on the
(2K, 2K) matrices, as CLEMS ran before, against the per-block ``bipartite_smacof`` it runs now, on
the distinct labelsets of the first ``--clems-rows`` training rows (default 1,000) for
``--clems-steps`` Guttman steps (default 20; a CLEMS fit takes up to 300 per start, 4 starts),
with the largest difference of the embeddings.

``--only bpnn`` times BPNN's training epochs (the study's network: ``hidden`` = 0.2 x the
features, momentum 0.2, learning rate 0.1, ``--bpnn-epochs`` online epochs, default 2) against
scikit-learn's ``MLPClassifier`` with the same network and the same online updates (one logistic
hidden layer, SGD with batch size 1, momentum 0.2 without Nesterov, no L2 penalty, rows in order,
no early stop; its loss is the cross-entropy, BPNN's the squared error, which costs the same).
``--previous PATH`` adds a third side: the same epochs through an earlier build of
``mlbench/_ext/_dbpnn`` (e.g. the .so of another checkout), with a check that it gives the same
weights.  Measured on corel5k (#45 item 5, the kernel that sweeps each weight matrix once per row and
sums four hidden errors side by side, against the build before it; a 2-core machine with the grid
running): the table "Speed-ups made for it" in docs/bogatinovski2022.md.
"""
import sys
import tracemalloc
import warnings
from pathlib import Path

import _harness

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "methods"))


def data(quick):
    if quick:
        from sklearn.datasets import make_multilabel_classification

        X, Y = make_multilabel_classification(n_samples=300, n_features=40, n_classes=8,
                                              random_state=0)
        return "synthetic", X.astype(float), Y.astype(np.int8)
    from mlbench.data import load_dataset

    ds = load_dataset("corel5k")
    X = ds.X.toarray() if hasattr(ds.X, "toarray") else np.asarray(ds.X, dtype=float)
    return "corel5k", X, ds.Y


def peak_mb(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2 ** 20
    finally:
        tracemalloc.stop()


def skml_mltsvm(c_k, lam, omega, threshold):
    """scikit-multilearn's MLTSVM with its own SOR, label k's negatives and the .A compatibility."""
    import inspect
    from unittest import mock

    import skml_adapt_ref as ref

    # 0.2.0 reads ``.A`` of its products, which its dense inverse then has to provide as a
    # numpy.matrix; scikit-multilearn-ng works on arrays, where a matrix breaks its SOR's shapes
    reads_A = ".A" in inspect.getsource(ref._mltsvm_module.MLTSVM.fit)
    inverse = ref._dense_inverse if reads_A else ref._mltsvm_module.inv_dense

    class Timed(ref._mltsvm_module.MLTSVM):
        def fit(self, X, Y):
            with mock.patch.object(ref._mltsvm_module, "_get_x_noclass_instances",
                                   ref._negatives_of_label), \
                    mock.patch.object(ref._mltsvm_module, "inv_dense", inverse):
                return super().fit(X, Y)

    return Timed(c_k=c_k, lambda_param=lam, sor_omega=omega, threshold=threshold)


def main(argv=None):
    from sklearn.preprocessing import MinMaxScaler

    ap = _harness.parser(__doc__, repeats=3)
    ap.add_argument("--mltsvm-labels", type=int, default=40)
    ap.add_argument("--only", choices=("mlaram", "mltsvm", "clems", "bpnn"),
                    help="run one comparison")
    ap.add_argument("--bpnn-epochs", type=int, default=2)
    ap.add_argument("--previous", help="an earlier build of mlbench/_ext/_dbpnn (.so) for --only bpnn")
    ap.add_argument("--clems-rows", type=int, default=1000)
    ap.add_argument("--clems-steps", type=int, default=20)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    name, X, Y = data(args.quick)
    perm = np.random.default_rng(0).permutation(X.shape[0])
    cut = 2 * X.shape[0] // 3
    tr, te = perm[:cut], perm[cut:]
    scaler = MinMaxScaler().fit(X[tr])
    Xtr, Xte = np.clip(scaler.transform(X[tr]), 0, 1), np.clip(scaler.transform(X[te]), 0, 1)
    Ytr = Y[tr]
    shape = f"{name}: train {len(tr)} x {X.shape[1]}, test {len(te)}"

    same = True
    if args.only in (None, "mlaram"):
        same = compare_mlaram(args, shape, Xtr, Ytr, Xte, Y.shape[1])
    if args.only in (None, "mltsvm"):
        compare_mltsvm(args, shape, Xtr, Ytr, Xte, Y.shape[1])
    if args.only in (None, "clems"):
        compare_clems(args, name, np.asarray(Ytr[:args.clems_rows]))
    if args.only in (None, "bpnn"):
        same = compare_bpnn(args, shape, Xtr, Ytr) and same
    return 0 if same else 1


def compare_bpnn(args, shape, Xtr, Ytr):
    import importlib.util

    from sklearn.neural_network import MLPClassifier

    from mlbench.methods.neural.bpnn import BPNN

    epochs, h = (1 if args.quick else args.bpnn_epochs), max(1, int(0.2 * Xtr.shape[1]))
    Ytr = np.asarray(Ytr, dtype=int)

    def ours():
        return BPNN(hidden=h, epochs=epochs, learning_rate=0.1, momentum=0.2,
                    random_state=0).fit(Xtr, Ytr).weights_

    def sklearn():
        return MLPClassifier(hidden_layer_sizes=(h,), activation="logistic", solver="sgd",
                             batch_size=1, learning_rate_init=0.1, momentum=0.2,
                             nesterovs_momentum=False, alpha=0.0, max_iter=epochs, shuffle=False,
                             n_iter_no_change=epochs + 1, tol=0.0,
                             random_state=0).fit(Xtr, Ytr).coefs_

    sides = {"mlbench": ours, "scikit-learn": sklearn}
    if args.previous:
        import mlbench.methods.neural.dbpnn as dbpnn

        spec = importlib.util.spec_from_file_location("mlbench._ext._dbpnn", args.previous)
        previous = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(previous)
        current = dbpnn._backprop_kernel

        def with_previous():
            dbpnn._backprop_kernel = previous.backprop_online
            try:
                return ours()
            finally:
                dbpnn._backprop_kernel = current

        sides["previous build"] = with_previous
    out = _harness.compare_many(f"BPNN, {epochs} epochs, {shape}, {Ytr.shape[1]} labels, "
                                f"{h} hidden units", sides, **_harness.timing(args))
    print(f"   peak traced memory: mlbench {peak_mb(ours):.0f} MB, scikit-learn "
          f"{peak_mb(sklearn):.0f} MB", flush=True)
    if not args.previous:
        return True
    same = all(np.array_equal(a, b) for a, b in zip(out.results["mlbench"],
                                                    out.results["previous build"]))
    print(f"   same weights as the previous build: {same}", flush=True)
    return same


def compare_clems(args, name, Y):
    from mlbench.methods.embedding.clems import bipartite_smacof, hamming_cost, weighted_smacof

    U, counts = np.unique(Y, axis=0, return_counts=True)
    K, L = U.shape
    cost = np.sqrt(hamming_cost(U, U))
    init = np.random.RandomState(0).random_sample((2 * K, L))
    steps = 2 if args.quick else args.clems_steps

    def general():
        delta, W = np.zeros((2 * K, 2 * K)), np.zeros((2 * K, 2 * K))
        delta[:K, K:], delta[K:, :K] = cost, cost.T
        W[:K, K:], W[K:, :K] = counts[:, None], counts[None, :]
        return weighted_smacof(delta, W, init, steps, -1.0)[0]

    def blocks():
        return bipartite_smacof(cost, counts, init, steps, -1.0)[0]

    out = _harness.compare(f"CLEMS embedding, {steps} SMACOF steps, {name}: K = {K} labelsets, "
                           f"L = {L}", blocks, general, labels=("per block", "general"),
                           **_harness.timing(args))
    diff = np.abs(out.results["per block"] - out.results["general"]).max()
    print(f"   largest difference of the embeddings: {diff:.3g}")
    print(f"   peak traced memory: per block {peak_mb(blocks):.0f} MB, general "
          f"{peak_mb(general):.0f} MB", flush=True)


def compare_mlaram(args, shape, Xtr, Ytr, Xte, n_labels):
    from mlbench.methods.neural.mlaram import MLARAM
    from skml_adapt_ref import patched_mlaram

    def aram_ours():
        return MLARAM(vigilance=0.9, threshold=0.02).fit(Xtr, Ytr).predict(Xte)

    def aram_theirs():
        return patched_mlaram(Xtr, Ytr, Xte, 0.9, 0.02)[0]

    out = _harness.compare(f"MLARAM fit + predict, {shape}, {n_labels} labels", aram_ours,
                           aram_theirs, labels=("mlbench", "scikit-multilearn"),
                           **_harness.timing(args))
    same = np.array_equal(out.results["mlbench"], out.results["scikit-multilearn"])
    print(f"   identical predictions: {same}")
    print(f"   peak traced memory: mlbench {peak_mb(aram_ours):.0f} MB, scikit-multilearn "
          f"{peak_mb(aram_theirs):.0f} MB", flush=True)
    return same


def compare_mltsvm(args, shape, Xtr, Ytr, Xte, n_labels):
    from mlbench.methods.svm.mltsvm import MLTSVM

    L = min(args.mltsvm_labels, n_labels)
    Ysub = Ytr[:, :L]
    params = dict(c_k=1.0, lam=1.0, omega=0.2, threshold=0.2)

    def tsvm_ours():
        return MLTSVM(c_k=1.0, lambda_param=1.0, sor_omega=0.2, threshold=0.2).fit(
            Xtr, Ysub).predict(Xte)

    def _skml_fit_predict():
        clf = skml_mltsvm(**params)
        clf.fit(Xtr, Ysub)
        return np.asarray(clf.predict(Xte))

    out = _harness.compare(f"MLTSVM fit + predict, {shape}, first {L} labels", tsvm_ours,
                           _skml_fit_predict, labels=("mlbench", "scikit-multilearn"),
                           **_harness.timing(args))
    agree = float(np.mean(out.results["mlbench"] == out.results["scikit-multilearn"]))
    print(f"   prediction agreement (different SOR, see doc): {agree:.4f}")
    print(f"   peak traced memory: mlbench {peak_mb(tsvm_ours):.0f} MB, scikit-multilearn "
          f"{peak_mb(_skml_fit_predict):.0f} MB")


if __name__ == "__main__":
    sys.exit(main())
