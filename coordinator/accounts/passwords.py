"""Passwords hashed with Argon2id (argon2-cffi, the reference implementation's binding), never by
hand; a hash made with older parameters is upgraded at the next login."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

#: Shortest and longest password taken (the longest bounds the hashing work a request can ask for).
MIN_PASSWORD = 8
MAX_PASSWORD = 256
_HASHER = PasswordHasher()


def check_password(password: str) -> str:
    """``password`` when it is acceptable; a ValueError saying what is expected otherwise."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise ValueError(f"password: expected {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    return password


def hash_password(password: str) -> str:
    """The Argon2id hash of ``password`` (checked first)."""
    return _HASHER.hash(check_password(password))


def verify_password(stored: str, password: str) -> bool:
    """True when ``password`` is the one ``stored`` was made from."""
    if len(password) > MAX_PASSWORD:
        return False
    try:
        return _HASHER.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(stored: str) -> bool:
    """True when ``stored`` was made with weaker parameters than today's."""
    try:
        return _HASHER.check_needs_rehash(stored)
    except InvalidHashError:
        return True
