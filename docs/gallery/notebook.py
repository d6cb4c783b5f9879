"""The notebook API on a small experiment: read the results, run the report's tests, draw."""
import mlbench

# three built-ins, two datasets, two 50/50 holdouts of the quick protocol
mlbench.run("quick", methods=["br-lr", "cc", "mlknn"], datasets=["emotions", "scene"],
            repeats=2, out="results/quick.csv")

df = mlbench.results.read("results/quick.csv")          # one row per (dataset, method, split)
print(df[["dataset", "method", "split", "status", "macro_f1"]].head(4).to_string())
print(df.attrs["metrics"])

fr = mlbench.stats.friedman(df, "macro_f1")
print(fr.average_ranks.to_dict(), round(fr.p_f, 4), fr.rejects)
print(fr.summary())                                      # the table mlbench report prints

ph = mlbench.stats.posthoc(df, "macro_f1", control="mlknn")
print(ph.vs_control[["mean_rank", "z", "p_holm", "reject_holm"]].round(3).to_string())

tt = mlbench.stats.corrected_ttest(df, "macro_auc", control="mlknn")
print(tt.tests.round(4).to_string())
print(tt.win_tie_loss.to_string())

bt = mlbench.stats.bayes(df, "macro_auc", control="mlknn", rope=0.01)
print(bt.probabilities.round(3).to_string())

for kind in ("cd", "box", "heatmap", "pareto"):        # matplotlib figures
    fig = getattr(mlbench.plots, kind)(df, "macro_f1")
    fig.savefig(f"{kind}.svg")
    print(kind, fig.get_size_inches().round(1))
