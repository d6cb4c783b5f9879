"""A small neural network (scikit-learn's MLPClassifier: one logistic output per label, trained
jointly) beside mlbench's built-ins."""
from pathlib import Path

import mlbench

# A protocol of our own: two 50/50 holdouts of two datasets, features standardized on the training
# part; the network as a spec named by an id, its weight decay a grid of two variants.
Path("gallery").mkdir(exist_ok=True)
Path("gallery/mlp.yaml").write_text("""
name: gallery-mlp
split: {scheme: holdout, train_fraction: 0.5, repeats: 2}
seed: 0
preprocess: [standardize]
metrics: [macro_f1, macro_auc, hamming_loss]
datasets: [emotions, scene]
control: br-lr
methods:
  - id: mlp
    name: sklearn.neural_network:MLPClassifier(hidden_layer_sizes=(64,), max_iter=300,
            early_stopping=True)
    grid: {alpha: [0.0001, 0.1]}
  - br-lr
  - mlknn
""")
mlbench.run("gallery/mlp.yaml", out="gallery/mlp.csv")

# The results as a DataFrame: mean score and fit time per cell, then the report's tests
df = mlbench.results.read("gallery/mlp.csv")
cells = df.groupby(["method", "dataset"])[["macro_f1", "macro_auc", "fit_seconds"]].mean()
print(cells.round(3).to_string())
print()
print(mlbench.stats.corrected_ttest(df, "macro_auc").summary(fmt="markdown"))
