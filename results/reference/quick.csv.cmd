# The quick reference run: results/reference/quick.csv (and its split indices in quick.csv.splits/)
# was written by this command, run from the repository root with mlbench 0.1.0 at commit 054c434
# (2026-11-21), the offline dataset mirror in MLBENCH_MIRROR (yeast and scene come from it; emotions
# is embedded).  A second run gave identical numbers (`mlbench check --tolerance 0` passes).
# Wall time 2m44s on the shared 2-core machine (45 s of CPU).
#
# CI reruns it into a scratch file and gates on:
#   mlbench check SCRATCH.csv --against results/reference/quick.csv --tolerance 0.02
mlbench run --protocol quick --methods br-lr,mlknn,cc --datasets emotions,yeast,scene --jobs 1 --out results/reference/quick.csv -q
