"""The server's pages for people over HTTP, against a real ``arbiter server`` process: logging in
(cookie flags, one line on failure, a 429 after repeated failures), the CSRF token every form that
changes anything needs, sign-up, the submission form (a field's error names it and stores nothing,
a good one is stored as the API stores it), a run's buttons, tokens, and a private server."""

from __future__ import annotations

import http.cookiejar
import io
import re
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_testkit import ServerProcess

from coordinator.accounts.passwords import hash_password
from coordinator.accounts.rules import AccountState
from coordinator.store import Store

#: Bound on a request (seconds).
TIMEOUT = 60.0
PASSWORD = "correct horse battery"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


class Browser:
    """A client with its own cookie jar that does not follow redirects (the test looks at them)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect)

    def open(
        self,
        path: str,
        fields: dict[str, str] | None = None,
        files: dict[str, tuple[str, bytes]] | None = None,
        extra: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], str, list[str]]:
        """Status, headers, body text and the Set-Cookie lines of a GET (or a POST of ``fields``)."""
        data, headers = None, dict(extra or {})
        if files is not None:
            boundary = uuid.uuid4().hex
            parts = []
            for name, value in (fields or {}).items():
                head = f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                parts.append(f"{head}{value}\r\n".encode())
            for name, (filename, content) in files.items():
                head = (
                    f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
                    f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'
                )
                parts.append(head.encode() + content + b"\r\n")
            data = b"".join(parts) + f"--{boundary}--\r\n".encode()
            headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
        elif fields is not None:
            data = urllib.parse.urlencode(fields).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        request = urllib.request.Request(self.base + path, data=data, headers=headers)
        try:
            with self.opener.open(request, timeout=TIMEOUT) as answer:
                return (
                    answer.status,
                    {k.lower(): v for k, v in answer.headers.items()},
                    answer.read().decode(),
                    answer.headers.get_all("Set-Cookie") or [],
                )
        except urllib.error.HTTPError as e:
            return (
                e.code,
                {k.lower(): v for k, v in e.headers.items()},
                e.read().decode(),
                e.headers.get_all("Set-Cookie") or [],
            )

    def csrf(self, path: str = "/account") -> str:
        status, _, text, _ = self.open(path)
        assert status == 200, (status, text)
        found = re.search(r'name="csrf" value="([^"]+)"', text)
        assert found, text
        return found[1]

    def login(self, name: str, password: str = PASSWORD) -> tuple[int, dict[str, str], str, list[str]]:
        """Log in through the form: its page first (the form's token, in a cookie and a field)."""
        token = self.csrf("/login")
        return self.open("/login", {"name": name, "password": password, "next": "/", "csrf": token})


def add_user(store: str, name: str, role: str = "user") -> None:
    """An active account, as ``arbiter user add`` makes it (a command each cost a second of CPU)."""
    accounts = Store(store)
    try:
        accounts.create_account(name, hash_password(PASSWORD), role, AccountState.ACTIVE)
    finally:
        accounts.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    """A server that takes what the forms submit and plays none of it (the forms are what is tested)."""
    store = f"sqlite:///{tmp_path / 'server.db'}"
    process = ServerProcess(tmp_path, store, args=("--no-play",))
    try:
        process.start()
        add_user(store, "alice")
        add_user(store, "ann", "approver")
        yield process
    finally:
        process.stop()


def test_login_sets_a_strict_cookie_and_failures_say_one_line_then_429(server: ServerProcess) -> None:
    web = Browser(server.url)
    status, _, text, cookies = web.login("alice", "wrong password!")
    assert (
        status == 401
        and "Unknown name or wrong password." in text
        and not any(c.startswith("arbiter_session=") for c in cookies)
    )
    # a login posted from elsewhere (without the token of the form's own cookie) is refused
    status, _, text, cookies = Browser(server.url).open("/login", {"name": "alice", "password": PASSWORD})
    assert status == 403 and not any(c.startswith("arbiter_session=") for c in cookies)
    forged = Browser(server.url)
    forged.csrf("/login")
    status, _, _, _ = forged.open("/login", {"name": "alice", "password": PASSWORD, "csrf": "guessed"})
    assert status == 403
    status, _, text, _ = Browser(server.url).open("/signup", {"name": "mallory", "password": PASSWORD})
    assert status == 403 and "came from elsewhere" in text
    status, _, text, _ = web.login("nobody", PASSWORD)
    assert status == 401 and "Unknown name or wrong password." in text
    status, headers, _, cookies = web.login("alice")
    assert status == 303 and headers["location"] == "/"
    (cookie,) = [c for c in cookies if c.startswith("arbiter_session=")]
    flags = {f.strip().lower() for f in cookie.split(";")[1:]}
    assert {"httponly", "samesite=lax", "path=/"} <= flags
    assert "secure" not in flags  # plain http on loopback; https requests get Secure
    status, _, text, _ = web.open("/account")
    assert status == 200 and "Account alice" in text
    # behind a TLS proxy on this machine (uvicorn trusts X-Forwarded-Proto from 127.0.0.1): Secure
    proxied = Browser(server.url)
    fields = {"name": "alice", "password": PASSWORD, "csrf": proxied.csrf("/login")}
    status, _, _, cookies = proxied.open("/login", fields, extra={"X-Forwarded-Proto": "https"})
    assert status == 303 and "secure" in {f.strip().lower() for f in cookies[0].split(";")}
    # five failures from one address (two above): then even the right password is refused a while
    other = Browser(server.url)
    assert [other.login("ann", "not the password")[0] for _ in range(4)] == [401, 401, 401, 429]
    status, _, text, _ = other.login("ann")
    assert status == 429 and "Too many failed attempts" in text


def test_every_changing_form_needs_the_csrf_token(server: ServerProcess) -> None:
    web = Browser(server.url)
    assert web.login("alice")[0] == 303
    token = web.csrf()
    for path, fields in (
        ("/logout", {}),
        ("/account/tokens", {"label": "x"}),
        ("/submit/sprt", {"game": "congo", "candidate": "default"}),
        ("/accounts/ann", {"state": "disabled"}),
    ):
        for given in ({}, {"csrf": "wrong"}):
            status, _, text, _ = web.open(path, fields | given)
            assert status == 403 and "csrf" in text, (path, status, text[:300])
    anonymous = Browser(server.url)
    status, _, _, _ = anonymous.open("/account/tokens", {"label": "x", "csrf": token})
    assert status == 401
    # with the token: a new token, shown once, then listed without its value
    status, _, text, _ = web.open("/account/tokens", {"label": "laptop", "csrf": token})
    shown = re.search(r'<code id="new-token">(arbiter_[^<]+)</code>', text)
    assert status == 200 and shown
    status, _, text, _ = web.open("/account")
    assert "laptop" in text and shown[1] not in text
    assert Store(server.store).audit()[0].action == "token"
    # revoked from the account page once, recorded; a second time it is none of hers
    revoke = re.search(r'action="(/account/tokens/(\d+)/revoke)"', text)
    assert revoke
    assert web.open(revoke[1], {"csrf": token})[0] == 303
    entry = Store(server.store).audit()[0]
    assert (entry.actor, entry.action, entry.detail) == ("alice", "revoke token", {"token": int(revoke[2])})
    status, _, text, _ = web.open(revoke[1], {"csrf": token})
    assert status == 404 and "none of yours, or revoked already" in text


def test_signup_waits_for_an_approver_who_enables_it_on_the_web(server: ServerProcess) -> None:
    web = Browser(server.url)
    status, _, text, _ = web.open(
        "/signup", {"name": "bob", "password": PASSWORD, "csrf": web.csrf("/signup")}
    )
    assert status == 201 and "waits for an approver" in text
    status, _, text, _ = web.login("bob")
    assert status == 403 and "waits for an approver" in text
    status, _, text, _ = web.open(
        "/signup", {"name": "bob!", "password": PASSWORD, "csrf": web.csrf("/signup")}
    )
    assert status == 400 and "name: expected" in text
    approver = Browser(server.url)
    assert approver.login("ann")[0] == 303
    token = approver.csrf("/accounts")
    status, headers, _, _ = approver.open("/accounts/bob", {"state": "active", "csrf": token})
    assert status == 303 and headers["location"] == "/accounts"
    # an approver changes no role (an admin's)
    status, _, _, _ = approver.open("/accounts/alice", {"role": "admin", "csrf": token})
    assert status == 403
    assert web.login("bob")[0] == 303


def test_a_bad_field_names_it_and_stores_nothing_a_good_form_waits_for_approval(
    server: ServerProcess,
) -> None:
    web = Browser(server.url)
    assert web.login("alice")[0] == 303
    token = web.csrf("/submit")
    # a long run: it is still going when its submitter changes it below
    base = {"csrf": token, "game": "congo", "candidate": "default", "nodes": "200", "max_games": "20000"}
    for fields, files, named in (
        ({"elo0": "lots"}, None, "elo0"),
        ({"game": "chess"}, None, "game"),
        ({"candidate": "/etc/passwd"}, None, "candidate"),
        ({"nodes": "-5"}, None, "nodes"),
        ({"repo": "/srv/private", "candidate": "ref:main"}, None, "repo"),
        ({"candidate": ""}, {"candidate_file": ("w.json", b"{not json")}, "candidate"),
        ({"candidate": ""}, {"candidate_file": ("p.tar.gz", b"not an archive")}, "candidate_file"),
        ({"throughput": "0"}, None, "throughput"),
        ({"throughput": "²"}, None, "throughput"),  # a digit to str.isdigit, not to int()
        ({"webhook": "ftp://example.com/hook"}, None, "webhook"),
    ):
        status, _, text, _ = web.open("/submit/sprt", base | fields, files if files else {})
        found = re.search(r'<p class="error" id="form-error">([^<]*)</p>', text)
        assert status == 400 and found and found[1].startswith(f"{named}:"), (fields, status, text[-1500:])
    assert Store(server.store).list_runs() == []
    status, headers, _, _ = web.open("/submit/sprt", base, {})
    assert status == 303
    run_id = int(headers["location"].rsplit("/", 1)[1])
    row = server.run(run_id)
    assert row["approval"] == "pending" and row["owner"] == "alice" and row["config"]["max_games"] == 20000
    status, _, text, _ = web.open(f"/runs/{run_id}")
    assert "submitted by <b>alice</b>" in text and 'data-field="approval">pending' in text
    assert f'action="/runs/{run_id}/approve"' not in text  # never one's own
    approver = Browser(server.url)
    assert approver.login("ann")[0] == 303
    status, _, text, _ = approver.open(f"/runs/{run_id}")
    assert f'action="/runs/{run_id}/approve"' in text
    mine = f'href="/runs/{run_id}"'
    assert (
        mine in approver.open("/?approval=pending")[2] and mine not in approver.open("/?approval=approved")[2]
    )
    assert mine in approver.open("/?owner=alice")[2] and mine not in approver.open("/?owner=ann")[2]
    status, _, _, _ = approver.open(f"/runs/{run_id}/approve", {"csrf": "nope"})
    assert status == 403 and server.run(run_id)["approval"] == "pending"
    status, _, _, _ = approver.open(f"/runs/{run_id}/approve", {"csrf": approver.csrf(f"/runs/{run_id}")})
    assert status == 303 and server.run(run_id)["approval"] == "approved"
    # the submitter's change of throughput sends the run back to the approvers; a bad one is a 400
    token = web.csrf(f"/runs/{run_id}")
    for bad in ("lots", "²", "9" * 5000):
        status, _, text, _ = web.open(f"/runs/{run_id}/change", {"csrf": token, "throughput": bad})
        assert status == 400 and "throughput: expected a whole number" in text, (bad[:9], status)
    status, _, _, _ = web.open(f"/runs/{run_id}/change", {"csrf": token, "priority": "0", "throughput": "50"})
    assert status == 303 and server.run(run_id)["approval"] == "pending"
    for bad in ("%C2%B2", "9" * 5000, "-1"):
        status, _, text, _ = web.open(f"/audit?run={bad}")
        assert status == 400 and "run: expected a run" in text, (bad[:9], status)
    status, _, text, _ = web.open(f"/audit?run={run_id}")
    assert status == 200 and "approve" in text and "ann" in text and "submit" in text and "change" in text
    status, headers, _, _ = web.open("/mine")
    assert status == 303 and headers["location"] == "/?owner=alice"


def test_the_other_forms_build_what_the_cli_builds(server: ServerProcess, tmp_path: Path) -> None:
    from sprt_testkit import write_weights

    weights = write_weights(tmp_path / "w.json", {"pawn": 150}).read_bytes()
    web = Browser(server.url)
    assert web.login("ann")[0] == 303
    token = web.csrf("/submit/match")
    for kind, fields, files, check in (
        ("match", {"pairs": "3", "nodes": "100"}, {"candidate_file": ("w.json", weights)}, ("pairs", 3)),
        (
            "tune",
            {"params": "pawn", "method": "optuna", "max_trials": "2", "nodes": "100"},
            {},
            ("method", "optuna"),
        ),
        (
            "tournament",
            {"engine1": "default", "pairs": "1", "nodes": "100"},
            {"engine2_file": ("w.json", weights)},
            ("pairs", 1),
        ),
    ):
        status, headers, text, _ = web.open(
            f"/submit/{kind}", {"csrf": token, "game": "congo", **fields}, files
        )
        assert status == 303, (kind, text[-1500:])
        row = server.run(int(headers["location"].rsplit("/", 1)[1]))
        assert row["kind"] == kind and row["owner"] == "ann" and row["config"][check[0]] == check[1], row
        # an approver's weights-only run starts at once (no cross approval)
        assert row["approval"] == "approved"
    status, _, text, _ = web.open("/submit/tune", {"csrf": token, "game": "congo", "method": "annealing"}, {})
    assert status == 400 and re.search(r'id="form-error">method:', text)
    status, _, text, _ = web.open(
        "/submit/tournament", {"csrf": token, "game": "congo", "engine1": "/x.json"}, {}
    )
    assert status == 400 and re.search(r'id="form-error">engine1:', text)


def zipped(folder: Path, extra: dict[str, bytes] | None = None) -> bytes:
    """A folder as a .zip (with ``extra`` entries by name), execute bits kept."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.iterdir()):
            archive.write(path, f"{folder.name}/{path.name}")
        for name, content in (extra or {}).items():
            archive.writestr(name, content)
    return buffer.getvalue()


def test_an_engine_program_comes_as_a_zip_and_stays_in_its_folder(
    server: ServerProcess, tmp_path: Path
) -> None:
    from engine_testkit import arbiter_engine_file

    folder = arbiter_engine_file(tmp_path / "zipped", name="zipped").parent
    web = Browser(server.url)
    assert web.login("ann")[0] == 303
    token = web.csrf("/submit")
    base = {"csrf": token, "game": "congo", "nodes": "100", "max_games": "2", "candidate": ""}
    # an engine file reaching out of its folder is refused, naming the field
    escaping = zipped(folder, {"zipped/out.toml": b'command = ["./arbiter-engine"]\nworkdir = "../.."\n'})
    status, _, text, _ = web.open("/submit/sprt", base, {"candidate_file": ("p.zip", escaping)})
    assert status == 400 and re.search(r'id="form-error">candidate_file: expected one engine file', text), (
        text
    )
    (folder / "zipped.toml").write_text(
        'name = "zipped"\ncommand = ["./arbiter-engine"]\nworkdir = "../.."\n'
    )
    status, _, text, _ = web.open("/submit/sprt", base, {"candidate_file": ("p.zip", zipped(folder))})
    assert status == 400 and "inside the uploaded folder" in text, text[-800:]
    assert Store(server.store).list_runs() == []
    (folder / "zipped.toml").write_text('name = "zipped"\ncommand = ["./arbiter-engine"]\n')
    status, headers, text, _ = web.open("/submit/sprt", base, {"candidate_file": ("p.zip", zipped(folder))})
    assert status == 303, text[-800:]
    row = server.run(int(headers["location"].rsplit("/", 1)[1]))
    program = row["config"]["candidate_program"]
    assert program["name"] == "zipped" and row["approval"] == "pending"  # a program waits, even an approver's
    assert Store(server.store).program_archive(program["digest"]) is not None


def test_a_private_server_sends_readers_to_log_in(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'private.db'}"
    process = ServerProcess(tmp_path, store, args=("--no-play", "--private"), name="p").start()
    try:
        add_user(store, "alice")
        web = Browser(process.url)
        status, headers, _, _ = web.open("/runs/1")
        assert status == 303 and headers["location"] == "/login?next=/runs/1"
        assert web.open("/api/runs")[0] == 401
        assert web.open("/login")[0] == 200
        assert web.login("alice")[0] == 303
        status, _, text, _ = web.open("/")
        assert status == 200 and "<b>alice</b>" in text
    finally:
        process.stop()
