"""The kind of fact a tyro module gives for a `tyro.cli(...)` handed a type made at run time
(`tyro.cli(type(config), default=config)`): the class it parses is none a file names, so the
rule names the candidates and `gather` makes their flags that call's (bot/core/facts.py). Its
own module, so a check reading cached facts does not import the extractors for the name."""

from typing import Final

RUNTIME_ROOT: Final = "runtime-root"
