"""Seats on other machines over a real OpenSSH server [docs/seats.md "Other machines"]."""

from __future__ import annotations

from tests.remote.conftest import Net
from tests.support.ids import id_of
from tests.support.procs import wait_until


def test_a_send_files_on_the_far_machine_and_its_receipt_comes_back(net: Net) -> None:
    sent = net.alpha.hail("boss", "worker@beta", "ask", "build the release?")
    assert sent.rc == 0, sent
    msg_id = id_of(sent.out)
    assert net.beta.new_files("worker") == [f"{msg_id}.md"]
    text = (net.beta.state / "seats" / "worker" / "new" / f"{msg_id}.md").read_text()
    assert "from: boss@alpha\n" in text and "reply: boss@alpha\n" in text
    envelope = f"[hail kind:ask from:boss@alpha id:{msg_id}] build the release?"
    assert wait_until(lambda: envelope in net.beta.screen(), 10), (sent.err, net.beta.screen())
    receipt = net.alpha.hail("boss", "sent", msg_id)
    assert receipt.rc == 0, receipt
    assert receipt.out.strip() == "delivered"
