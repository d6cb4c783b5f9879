"""scikit-learn's multi-output estimators beside mlbench's built-ins."""
from pathlib import Path

import mlbench

# A protocol of our own: two 50/50 holdouts of two datasets, features standardized on the training
# part; scikit-learn's estimators as specs, each named by an id, beside three built-ins.
Path("gallery").mkdir(exist_ok=True)
Path("gallery/sklearn.yaml").write_text("""
name: gallery-sklearn
split: {scheme: holdout, train_fraction: 0.5, repeats: 2}
seed: 0
preprocess: [standardize]
metrics: [macro_f1, macro_auc, hamming_loss]
datasets: [emotions, scene]
control: br-lr
methods:
  - id: sk-multioutput
    name: sklearn.multioutput:MultiOutputClassifier(
            estimator=sklearn.linear_model:LogisticRegression(max_iter=1000))
  - id: sk-chain
    name: sklearn.multioutput:ClassifierChain(
            estimator=sklearn.linear_model:LogisticRegression(max_iter=1000))
  - {id: sk-knn, name: "sklearn.neighbors:KNeighborsClassifier(n_neighbors=10)"}
  - br-lr
  - cc
  - mlknn
""")
mlbench.run("gallery/sklearn.yaml", out="gallery/sklearn.csv")

# The results as a DataFrame, then the report's tests on it
df = mlbench.results.read("gallery/sklearn.csv")
print(df.pivot_table(index="method", columns="dataset", values="macro_f1").round(3).to_string())
print()
print(mlbench.stats.friedman(df, "macro_f1").summary(fmt="markdown"))
print(mlbench.stats.corrected_ttest(df, "macro_f1").summary(fmt="markdown"))
