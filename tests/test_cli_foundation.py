import subprocess
import sys

from lhl_platform.corpus.demo import DEMO_DIR
from orchestration.cli import main


def test_ingest_prints_counts_and_verify_passes(tmp_path, capsys):
    assert main(["--home", str(tmp_path), "ingest", "cuad", str(DEMO_DIR)]) == 0
    out = capsys.readouterr().out
    assert "contracts: 12" in out and "instances: 492" in out
    assert main(["--home", str(tmp_path), "verify"]) == 0


def test_home_from_environment_and_one_line_errors(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LHL_HOME", str(tmp_path / "h"))
    assert main(["ingest", "cuad", str(tmp_path / "nowhere")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("lhl: ") and err.count("\n") == 1 and "nowhere" in err


def test_verify_fails_after_tampering(tmp_path, capsys):
    main(["--home", str(tmp_path), "ingest", "cuad", str(DEMO_DIR)])
    seg = next((tmp_path / "events").glob("*/*.parquet"))
    data = bytearray(seg.read_bytes())
    data[-20] ^= 0xFF
    seg.write_bytes(bytes(data))
    assert main(["--home", str(tmp_path), "verify"]) == 1
    assert seg.name in capsys.readouterr().err


def test_console_script_help_runs():
    out = subprocess.run([sys.executable, "-m", "orchestration.cli", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "ingest" in out.stdout
