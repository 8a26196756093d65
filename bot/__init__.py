"""docs-sync: find the doc lines a code change made wrong, and say how to fix them."""
