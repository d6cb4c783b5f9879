"""scikit-multilearn-ng's problem transformations and adapted methods beside mlbench's built-ins."""
from pathlib import Path

import mlbench

# A protocol of our own: two 50/50 holdouts of two datasets, features standardized on the training
# part; scikit-multilearn's methods as specs, each named by an id, beside two built-ins.
Path("gallery").mkdir(exist_ok=True)
Path("gallery/skmultilearn.yaml").write_text("""
name: gallery-skmultilearn
split: {scheme: holdout, train_fraction: 0.5, repeats: 2}
seed: 0
preprocess: [standardize]
metrics: [macro_f1, macro_auc, hamming_loss]
datasets: [emotions, scene]
control: br-lr
methods:
  - id: skml-lp
    name: skmultilearn.problem_transform:LabelPowerset(
            classifier=sklearn.linear_model:LogisticRegression(max_iter=1000))
  - id: skml-rakeld
    name: skmultilearn.ensemble:RakelD(labelset_size=3,
            base_classifier=sklearn.linear_model:LogisticRegression(max_iter=1000))
  - {id: skml-mlknn, name: "skmultilearn.adapt:MLkNN(k=10)"}
  - {id: skml-brknn, name: "skmultilearn.adapt:BRkNNaClassifier(k=10)"}
  - br-lr
  - mlknn
""")
mlbench.run("gallery/skmultilearn.yaml", out="gallery/skmultilearn.csv")

# The results as a DataFrame, then the report's tests on it
df = mlbench.results.read("gallery/skmultilearn.csv")
print(df.pivot_table(index="method", columns="dataset", values="macro_f1").round(3).to_string())
print()
print(mlbench.stats.friedman(df, "macro_f1").summary(fmt="markdown"))
print(mlbench.stats.corrected_ttest(df, "macro_f1").summary(fmt="markdown"))
