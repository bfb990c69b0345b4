"""kill -9 in the middle of a partition on a folder home, then re-run: no call completed before the durability window
is made again, and the calls that are repeated are at most the window's (plus those in flight). The harness, shared
with the shared store's test, is tests/resume_harness.py."""

from lhl_platform.home import Home
from tests.resume_harness import ResumeStore, kill_and_resume


def test_kill_minus_nine_mid_partition_then_rerun_repeats_only_the_durability_window(tmp_path):
    home = Home.resolve(tmp_path / "home")
    # One home: the killed run's records and the re-run's are read where they were written.
    kill_and_resume(home, ResumeStore(reply_delay_s=0.25, kill_wait_s=120, rerun_timeout_s=180,
                                      view=lambda stage: home.root))
