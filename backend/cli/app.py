"""The ``dew`` Typer application that every command module registers on."""

import typer

app = typer.Typer(
    name="dew",
    help="Domino Earning World: rules engine, match server, workers and chain tools.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
