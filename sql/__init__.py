"""SQL models, one `.sql` file each; `-- depends_on:` headers give the build order."""

from pathlib import Path

SQL_DIR = Path(__file__).parent
