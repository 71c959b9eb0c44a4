"""Accounts, their tokens and web sessions, and the record of who did what (revision 0007).

Only digests of tokens and session cookies are kept: a copy of the store gives nobody a way in.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from coordinator.store.connection import Database
from coordinator.store.rows import Account, AuditEntry, TokenRow, given, now
from coordinator.store.schema import accounts, api_tokens, audit_log, web_sessions

#: What every token starts with (so that a leaked one is recognised by secret scanners).
TOKEN_PREFIX = "arbiter_"


def digest(secret: str) -> str:
    """The SHA-256 of a token or a session cookie (what is stored)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def account_from_row(row: Any) -> Account:
    return Account(int(row.id), row.name, row.role, row.state, row.created_at, row.password_hash)


class AccountStore(Database):
    """Accounts, tokens, sessions and the audit log."""

    # accounts -----------------------------------------------------------------------------------

    def create_account(self, name: str, password_hash: str, role: str, state: str) -> int:
        """A new account; a ValueError when the name is taken."""
        try:
            with self.transaction() as c:
                inserted = c.execute(
                    insert(accounts).values(
                        name=name, password_hash=password_hash, role=role, state=state, created_at=now()
                    )
                )
                key = inserted.inserted_primary_key
                assert key is not None
                return int(key[0])
        except IntegrityError:
            raise ValueError(f"name: an account {name!r} exists already") from None

    def account(self, name: str) -> Account | None:
        with self.engine.connect() as c:
            row = c.execute(select(accounts).where(accounts.c.name == name)).first()
        return None if row is None else account_from_row(row)

    def account_by_id(self, account_id: int) -> Account | None:
        with self.engine.connect() as c:
            row = c.execute(select(accounts).where(accounts.c.id == account_id)).first()
        return None if row is None else account_from_row(row)

    def list_accounts(self) -> list[Account]:
        with self.engine.connect() as c:
            return [account_from_row(r) for r in c.execute(select(accounts).order_by(accounts.c.name))]

    def has_accounts(self) -> bool:
        with self.engine.connect() as c:
            return c.execute(select(accounts.c.id).limit(1)).first() is not None

    def update_account(
        self,
        name: str,
        *,
        role: str | None = None,
        state: str | None = None,
        password_hash: str | None = None,
    ) -> bool:
        """Change an account; False when there is none of that name. A disabled account's
        sessions end at once."""
        values = given(role=role, state=state, password_hash=password_hash)
        with self.transaction() as c:
            found = c.execute(select(accounts.c.id).where(accounts.c.name == name)).first()
            if found is None:
                return False
            if values:
                c.execute(update(accounts).where(accounts.c.id == found.id).values(**values))
            if state is not None and state != "active":
                c.execute(delete(web_sessions).where(web_sessions.c.account_id == found.id))
            return True

    # tokens -------------------------------------------------------------------------------------

    def new_token(self, account_id: int, label: str) -> str:
        """A new token of the account (shown once: only its digest is kept)."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        with self.transaction() as c:
            c.execute(
                insert(api_tokens).values(
                    account_id=account_id, label=label[:64], digest=digest(token), created_at=now()
                )
            )
        return token

    def token_account(self, token: str) -> Account | None:
        """The active account a token that is not revoked belongs to, or None."""
        if not token.startswith(TOKEN_PREFIX):
            return None
        with self.transaction() as c:
            row = c.execute(
                select(accounts, api_tokens.c.id.label("token_id"))
                .join(api_tokens, api_tokens.c.account_id == accounts.c.id)
                .where(api_tokens.c.digest == digest(token), api_tokens.c.revoked_at.is_(None))
            ).first()
            if row is None:
                return None
            c.execute(update(api_tokens).where(api_tokens.c.id == row.token_id).values(last_used_at=now()))
        return account_from_row(row)

    def tokens_of(self, account_id: int) -> list[TokenRow]:
        with self.engine.connect() as c:
            rows = c.execute(
                select(api_tokens).where(api_tokens.c.account_id == account_id).order_by(api_tokens.c.id)
            )
            return [TokenRow(int(r.id), r.label, r.created_at, r.last_used_at, r.revoked_at) for r in rows]

    def revoke_token(self, account_id: int, token_id: int) -> bool:
        """Revoke one of the account's tokens; False when it has no such token."""
        with self.transaction() as c:
            done = c.execute(
                update(api_tokens)
                .where(
                    api_tokens.c.id == token_id,
                    api_tokens.c.account_id == account_id,
                    api_tokens.c.revoked_at.is_(None),
                )
                .values(revoked_at=now())
            )
            return bool(done.rowcount)

    # sessions -----------------------------------------------------------------------------------

    def new_session(self, account_id: int, seconds: float) -> tuple[str, str]:
        """A new web session: its cookie's value and its CSRF token."""
        cookie, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        stamp = now()
        with self.transaction() as c:
            c.execute(delete(web_sessions).where(web_sessions.c.expires_at < stamp))
            c.execute(
                insert(web_sessions).values(
                    digest=digest(cookie),
                    account_id=account_id,
                    csrf=csrf,
                    created_at=stamp,
                    expires_at=stamp + timedelta(seconds=seconds),
                )
            )
        return cookie, csrf

    def session(self, cookie: str) -> tuple[Account, str] | None:
        """The active account of an unexpired session, and its CSRF token."""
        with self.engine.connect() as c:
            row = c.execute(
                select(accounts, web_sessions.c.csrf)
                .join(web_sessions, web_sessions.c.account_id == accounts.c.id)
                .where(web_sessions.c.digest == digest(cookie), web_sessions.c.expires_at >= now())
            ).first()
        return None if row is None else (account_from_row(row), str(row.csrf))

    def end_session(self, cookie: str) -> None:
        with self.transaction() as c:
            c.execute(delete(web_sessions).where(web_sessions.c.digest == digest(cookie)))

    # the audit log ------------------------------------------------------------------------------

    def record(
        self, actor: str, action: str, run_id: int | None = None, detail: Mapping[str, Any] | None = None
    ) -> None:
        """One line of who did what."""
        with self.transaction() as c:
            c.execute(
                insert(audit_log).values(
                    at=now(),
                    actor=actor[:64],
                    action=action[:32],
                    run_id=run_id,
                    detail=json.dumps(dict(detail), sort_keys=True) if detail else None,
                )
            )

    def audit(self, run_id: int | None = None, limit: int = 200) -> list[AuditEntry]:
        """The latest lines of the record (of ``run_id``), newest first."""
        query = select(audit_log).order_by(audit_log.c.id.desc()).limit(limit)
        if run_id is not None:
            query = query.where(audit_log.c.run_id == run_id)
        with self.engine.connect() as c:
            return [
                AuditEntry(
                    int(r.id), r.at, r.actor, r.action, r.run_id, json.loads(r.detail) if r.detail else {}
                )
                for r in c.execute(query)
            ]
