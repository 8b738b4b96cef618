"""``python -m snapline``: the same command line as the ``snapline`` console script."""

from snapline.cli import main

if __name__ == "__main__":
    main()
