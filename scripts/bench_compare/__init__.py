"""scripts/bench-compare's parts: build (revisions and their roam-bench),
runner (alternated runs), compare (statistics and flagging), table (output)."""
