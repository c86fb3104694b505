"""Friends and private messages through the services, on SQLite and PostgreSQL: requests by
name or address, accept, refuse, remove; a block hides both ways and lets nothing pass;
messages between friends only, cleaned, paged, capped and closed by a mute; the report of a
message reaches the moderators' list; a table invitation from the friends list; and the
closing of an account takes the friendships and the messages' words."""

from __future__ import annotations

import secrets
from datetime import timedelta

import pytest
from eth_account import Account as EthAccount
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from backend.accounts.models import Account, DisplayName
from backend.accounts.names import name_key
from backend.care import exceptions as care_exc
from backend.care.models import Sanction
from backend.db.base import utcnow
from backend.friends import exceptions as exc
from backend.friends import service as friends
from backend.friends.models import FriendBlock, FriendMessage, Friendship
from backend.tables import closure, invitations
from backend.tables import exceptions as tables_exc
from backend.tables import service as tables
from backend.tables.moderation import complaints
from tests.fixtures.tables import add_table

Sessions = sessionmaker[Session]
HIDDEN = "\u200b\u202e\U000e0068"


def _wallet(sessions: Sessions, name: str | None = None) -> str:
    """A wallet that signed in (and has ``name``, if given)."""
    address = EthAccount.create().address
    with sessions.begin() as session:
        session.add(Account(address=address))
        session.flush()
        if name:
            session.add(
                DisplayName(
                    address=address, name=name, name_key=name_key(name), changed_at=utcnow()
                )
            )
    return address


def _friends(sessions: Sessions, a: str, b: str) -> None:
    with sessions() as session:
        friends.request(session=session, address=a, who=b, per_day=30)
    with sessions() as session:
        friends.accept(session=session, address=b, other=a)


def _send(sessions: Sessions, a: str, b: str, text: str, per_minute: int = 20) -> friends.Message:
    with sessions() as session:
        return friends.send(
            session=session, address=a, other=b, text=text, per_minute=per_minute, per_day=500
        )


def _count(sessions: Sessions, model: type) -> int:
    with sessions() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


def _circle(sessions: Sessions, address: str) -> friends.Circle:
    with sessions() as session:
        return friends.circle(session=session, address=address)


def _listed(part: list[friends.Friend]) -> list[str]:
    return [f.address for f in part]


def test_a_request_by_name_is_accepted_and_both_list_the_other(
    session_factory: Sessions,
) -> None:
    name = f"Bea{secrets.token_hex(3)}"
    ana, bea = _wallet(session_factory), _wallet(session_factory, name)
    with session_factory() as session:
        # By name, as another spelling of it reads (case and look-alikes folded).
        asked = friends.request(session=session, address=ana, who=name.upper(), per_day=30)
    assert (asked.address, asked.name) == (bea, name)
    assert _listed(_circle(session_factory, ana).outgoing) == [bea]
    assert _listed(_circle(session_factory, bea).incoming) == [ana]
    with session_factory() as session, pytest.raises(exc.AlreadyRequested):
        friends.request(session=session, address=ana, who=bea.lower(), per_day=30)
    with session_factory() as session:
        friends.accept(session=session, address=bea, other=ana)
    assert _listed(_circle(session_factory, ana).friends) == [bea]
    assert _listed(_circle(session_factory, bea).friends) == [ana]
    assert _circle(session_factory, bea).incoming == []
    with session_factory() as session, pytest.raises(exc.AlreadyFriends):
        friends.request(session=session, address=bea, who=ana, per_day=30)
    with session_factory() as session:
        friends.remove(session=session, address=bea, other=ana)
    assert _circle(session_factory, ana).friends == []


@pytest.mark.parametrize(
    ("who", "refused"),
    [
        ("Nobody" + "x" * 8, exc.PlayerNotFound),
        # An address that never signed in here (fixed: xdist workers must collect one id).
        ("0x5854D5f6232Eb1c5B12A9E7C83CC8f9926BAB7A8", exc.PlayerNotFound),
        ("0x" + "0" * 16 + "ab" * 12, exc.PlayerNotFound),  # a guest's range
        (HIDDEN, exc.InvalidFriends),
        ("x" * 43, exc.InvalidFriends),
    ],
)
def test_a_request_to_no_player_is_refused(
    session_factory: Sessions, who: str, refused: type[Exception]
) -> None:
    ana = _wallet(session_factory)
    with session_factory() as session, pytest.raises(refused):
        friends.request(session=session, address=ana, who=who, per_day=30)
    with session_factory() as session, pytest.raises(exc.InvalidFriends):
        friends.request(session=session, address=ana, who=ana, per_day=30)
    with session_factory() as session, pytest.raises(exc.GuestNotAllowed):
        friends.circle(session=session, address="0x" + "0" * 16 + "cd" * 12)


def test_a_request_both_ways_makes_friends_and_a_refused_one_may_come_again(
    session_factory: Sessions,
) -> None:
    ana, bea, cai = (_wallet(session_factory) for _ in range(3))
    with session_factory() as session:
        friends.request(session=session, address=ana, who=bea, per_day=30)
    with session_factory() as session:
        friends.request(session=session, address=bea, who=ana, per_day=30)
    assert _listed(_circle(session_factory, ana).friends) == [bea]
    with session_factory() as session:
        friends.request(session=session, address=cai, who=ana, per_day=30)
    with session_factory() as session:
        friends.refuse(session=session, address=ana, other=cai)
    assert _circle(session_factory, cai).outgoing == []
    with session_factory() as session, pytest.raises(exc.FriendNotFound):
        friends.accept(session=session, address=ana, other=cai)
    with session_factory() as session:
        friends.request(session=session, address=cai, who=ana, per_day=30)
    assert _listed(_circle(session_factory, ana).incoming) == [cai]


def test_requests_over_the_daily_cap_are_refused(session_factory: Sessions) -> None:
    ana = _wallet(session_factory)
    others = [_wallet(session_factory) for _ in range(3)]
    for other in others[:2]:
        with session_factory() as session:
            friends.request(session=session, address=ana, who=other, per_day=2)
    with session_factory() as session, pytest.raises(exc.TooManyFriendRequests):
        friends.request(session=session, address=ana, who=others[2], per_day=2)
    assert _listed(_circle(session_factory, ana).outgoing) == others[1::-1]


def test_a_block_hides_both_ways_and_lets_nothing_pass(session_factory: Sessions) -> None:
    ana, bea = _wallet(session_factory), _wallet(session_factory)
    _friends(session_factory, ana, bea)
    _send(session_factory, ana, bea, "hola")
    with session_factory() as session:
        friends.block(session=session, address=bea, other=ana)
    with session_factory() as session:
        friends.block(session=session, address=bea, other=ana)  # twice: nothing more
    for one, other in ((ana, bea), (bea, ana)):
        mine = _circle(session_factory, one)
        assert other not in _listed(mine.friends + mine.incoming + mine.outgoing)
        with session_factory() as session, pytest.raises(exc.NotReachable):
            friends.request(session=session, address=one, who=other, per_day=30)
        with session_factory() as session, pytest.raises(exc.NotReachable):
            friends.send(
                session=session, address=one, other=other, text="hi", per_minute=9, per_day=9
            )
    assert _listed(_circle(session_factory, bea).blocked) == [ana]
    assert _circle(session_factory, ana).blocked == []  # the blocked wallet is not told
    assert _count(session_factory, FriendMessage) >= 1
    with session_factory() as session:
        friends.unblock(session=session, address=bea, other=ana)
    with session_factory() as session:
        friends.request(session=session, address=ana, who=bea, per_day=30)


def test_messages_go_to_friends_only_cleaned_and_paged(session_factory: Sessions) -> None:
    ana, bea, cai = (_wallet(session_factory) for _ in range(3))
    _friends(session_factory, ana, bea)
    before = _count(session_factory, FriendMessage)
    with session_factory() as session, pytest.raises(exc.NotFriends):
        friends.send(session=session, address=ana, other=cai, text="hi", per_minute=9, per_day=9)
    with session_factory() as session:
        friends.request(session=session, address=ana, who=cai, per_day=30)
    with session_factory() as session, pytest.raises(exc.NotFriends):  # asked, not yet friends
        friends.send(session=session, address=ana, other=cai, text="hi", per_minute=9, per_day=9)
    for bad in (HIDDEN, "x" * 501):
        with session_factory() as session, pytest.raises(exc.InvalidFriends):
            friends.send(session=session, address=ana, other=bea, text=bad, per_minute=9, per_day=9)
    assert _count(session_factory, FriendMessage) == before
    sent = [
        _send(session_factory, ana if n % 2 else bea, bea if n % 2 else ana, f"m{n}")
        for n in range(5)
    ]
    assert _send(session_factory, ana, bea, f"  one\n\tline{HIDDEN}  ").body == "one line"
    with session_factory() as session:
        page = friends.conversation(session=session, address=bea, other=ana, limit=3)
        older = friends.conversation(
            session=session, address=ana, other=bea, limit=3, before=page[-1].id
        )
    assert [m.body for m in page] == ["one line", "m4", "m3"]
    assert [m.body for m in older] == ["m2", "m1", "m0"]
    assert [m.id for m in older] == [m.id for m in sent[2::-1]]


def test_a_page_holds_as_many_messages_as_the_route_allows(session_factory: Sessions) -> None:
    """A page of ``limit`` (up to the routes' 500) is that long when the conversation is: the
    route reads a full page as "there is an older one" (``next_before``), so a service bound
    below the route's (200, once) lost every older page after the first."""
    ana, bea = _wallet(session_factory), _wallet(session_factory)
    _friends(session_factory, ana, bea)
    low, high = friends.pair(ana, bea)
    with session_factory.begin() as session:
        session.add_all(
            FriendMessage(sender=ana, recipient=bea, low=low, high=high, body=f"m{i}")
            for i in range(friends.PAGE_MAX + 1)
        )
    with session_factory() as session:
        page = friends.conversation(session=session, address=bea, other=ana, limit=500)
        assert len(page) == 500 == friends.PAGE_MAX
        rest = friends.conversation(session=session, address=bea, other=ana, before=page[-1].id)
    assert [m.body for m in rest] == ["m0"]


def test_messages_over_the_rate_are_refused_and_not_written(session_factory: Sessions) -> None:
    ana, bea = _wallet(session_factory), _wallet(session_factory)
    _friends(session_factory, ana, bea)
    for n in range(3):
        _send(session_factory, ana, bea, f"m{n}", per_minute=3)
    before = _count(session_factory, FriendMessage)
    with pytest.raises(exc.TooManyMessages):
        _send(session_factory, ana, bea, "one more", per_minute=3)
    with session_factory() as session, pytest.raises(exc.TooManyMessages):
        friends.send(session=session, address=ana, other=bea, text="x", per_minute=9, per_day=3)
    assert _count(session_factory, FriendMessage) == before
    _send(session_factory, bea, ana, "the other one's own budget", per_minute=3)


def test_a_muted_wallet_cannot_write(session_factory: Sessions) -> None:
    ana, bea = _wallet(session_factory), _wallet(session_factory)
    _friends(session_factory, ana, bea)
    with session_factory.begin() as session:
        session.add(
            Sanction(
                address=ana,
                kind="mute",
                reason="insults",
                imposed_by=bea,
                expires_at=utcnow() + timedelta(hours=1),
            )
        )
    with pytest.raises(care_exc.Muted):
        _send(session_factory, ana, bea, "hola")
    _send(session_factory, bea, ana, "the other still writes")


def test_the_recipient_reports_a_message_once_and_moderators_read_it(
    session_factory: Sessions,
) -> None:
    ana, bea = _wallet(session_factory), _wallet(session_factory)
    _friends(session_factory, ana, bea)
    message = _send(session_factory, ana, bea, "you are awful")

    def report(reporter: str) -> complaints.ComplaintRow:
        with session_factory() as session:
            return complaints.report_message(
                session=session,
                reporter=reporter,
                message_id=message.id,
                reason="abusive_language",
                note="see",
                per_day=10,
            )

    with pytest.raises(exc.FriendNotFound):
        report(ana)  # its sender is not its recipient
    with pytest.raises(exc.FriendNotFound):
        report(_wallet(session_factory))
    filed = report(bea)
    assert (filed.reported, filed.table_id, filed.message_id) == (ana, None, message.id)
    with pytest.raises(tables_exc.AlreadyReported):
        report(bea)
    with session_factory() as session:
        listed = complaints.list_complaints(session=session, reported=ana)
    assert [(c.id, c.message) for c in listed] == [(filed.id, "you are awful")]


def _table(sessions: Sessions, creator: str, status: str = "open") -> str:
    with sessions.begin() as session:
        return add_table(session, status=status, visibility="private", creator=creator)


def test_a_friend_is_invited_to_a_table_and_sees_it(session_factory: Sessions) -> None:
    ana, bea, cai = (_wallet(session_factory) for _ in range(3))
    _friends(session_factory, ana, bea)
    table_id = _table(session_factory, ana)

    def invite(by: str, friend: str, table: str = table_id) -> invitations.Invitation:
        with session_factory() as session:
            return invitations.invite_friend(session=session, table_id=table, by=by, friend=friend)

    with pytest.raises(exc.NotFriends):
        invite(ana, cai)
    with pytest.raises(tables_exc.Forbidden):  # bea is a friend, not the table's creator
        invite(bea, ana)
    with pytest.raises(tables_exc.TableNotOpen):
        invite(ana, bea, _table(session_factory, ana, status="finished"))
    assert invite(ana, bea).table_id == table_id
    with session_factory() as session:
        seen = invitations.invitations_of(session=session, address=bea)
        assert [(i.table_id, i.creator) for i in seen] == [(table_id, ana)]
        assert invitations.invitations_of(session=session, address=cai) == []
    with session_factory() as session:
        friends.block(session=session, address=bea, other=ana)
    with session_factory() as session:
        assert invitations.invitations_of(session=session, address=bea) == []  # hidden both ways
        with pytest.raises(exc.NotReachable):  # nor by the table's own invite list
            tables.invite(session=session, table_id=table_id, by=ana, addresses=[bea])


def test_closing_an_account_takes_its_friendships_and_its_words(
    session_factory: Sessions,
) -> None:
    ana, bea, cai = (_wallet(session_factory) for _ in range(3))
    _friends(session_factory, ana, bea)
    with session_factory() as session:
        friends.request(session=session, address=cai, who=ana, per_day=30)
    with session_factory() as session:
        friends.block(session=session, address=ana, other=_wallet(session_factory))
    _send(session_factory, ana, bea, "my words")
    _send(session_factory, bea, ana, "their words")
    with session_factory() as session:
        closure.close_account(session=session, address=ana)
    with session_factory() as session:
        assert (
            session.scalars(
                select(Friendship).where((Friendship.low == ana) | (Friendship.high == ana))
            ).all()
            == []
        )
        assert session.scalars(select(FriendBlock).where(FriendBlock.blocker == ana)).all() == []
        pair = (FriendMessage.low.in_([ana, bea]), FriendMessage.high.in_([ana, bea]))
        said = session.execute(select(FriendMessage.sender, FriendMessage.body).where(*pair))
        bodies = {sender: body for sender, body in said}
    assert bodies == {ana: None, bea: "their words"}
    assert _circle(session_factory, bea).friends == []
    assert _circle(session_factory, cai).outgoing == []
