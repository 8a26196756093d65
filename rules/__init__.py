"""The rule packs shipped with docs-sync, one YAML file each; installed as the `bot.packs` resources."""
