"""The history on git's refs, as the commands use it (issue 37): real git, the real CLI."""
