"""``heatlog serve``: the web layer (Starlette) over :class:`~heatlog.serve.table.Table`.

Who is who, by cookie: the host holds the host secret (``/h/SECRET`` sets it), a phone holds a seat secret and
the device token its join gave it (``/j/SECRET``; a later join on another phone replaces the token, and the
first phone is told), anyone else is a spectator. Secrets are HttpOnly, SameSite=Strict cookies.

State-changing requests are ``POST /api/act`` with a JSON body, the page's CSRF token in the ``X-CSRF-Token``
header (equal to the ``hl_csrf`` cookie: a page of another site can read neither) and, when the browser sends
one, an ``Origin`` of this server. Each submission carries an idempotency key: the answer to a key is stored
with it, so a submission retried after a timeout is answered again, not recorded twice.

Live updates are server-sent events (``GET /stream``): each change of the race wakes every stream, which sends
its own viewer's panels (a seat's stream carries that seat's private panel and nobody else's).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import secrets
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from ..engine import HeatlogError
from ..formats.jsonio import loads
from ..log.racelog import RaceLog
from ..recorder import NewRace, error_text
from ..recorder.wizard import setup_steps
from . import pages
from .seats import ServeStore
from .table import Outcome, Table, open_table

log = logging.getLogger("heatlog.serve")
T = TypeVar("T")

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
ASSETS = {"table.js": "text/javascript", "table.css": "text/css", "replay.css": "text/css"}
WEEK = 7 * 24 * 3600  # a seat survives a locked phone, a reload, a closed tab


def builtin_tracks() -> list[str]:
    from importlib import resources

    folder = resources.files("heatlog") / "data" / "tracks"
    names = sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))
    return (["usa"] + [n for n in names if n != "usa"]) if "usa" in names else names


class Viewer:
    """Who asks: ``host``, ``seat`` (with its car) or ``watch``; ``taken`` when another phone took the seat."""

    def __init__(self, role: str, car: str | None = None, *, taken: bool = False) -> None:
        self.role = role
        self.car = car
        self.taken = taken

    @property
    def who(self) -> str:
        return f"{self.role}:{self.car or ''}"


class Server:
    """The served database: at most one race served at a time (the host sets it up or resumes one)."""

    def __init__(
        self,
        db: str | Path,
        *,
        race: int | None = None,
        base_url: str = "http://127.0.0.1:8765",
        force: bool = False,
        announce: Callable[[Server], None] | None = None,
    ) -> None:
        self.db = Path(db)
        # The event store's SQLite connection belongs to the thread that opened it: every use of the log, the
        # table and its session runs on this one worker thread (which also keeps the entries in one order).
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="heatlog-table")
        self.log: RaceLog = self.call(RaceLog, self.db)
        self.store = ServeStore(self.db)
        self.host_secret = self.store.host_secret()
        self.base_url = base_url.rstrip("/")
        self.force = force
        self.announce = announce
        self.table: Table | None = None
        self.error: str | None = None
        self.act_lock = threading.RLock()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.streams: set[asyncio.Queue[int]] = set()
        self._cache: tuple[int, int, dict[str, Any]] | None = None
        self._seats_cache: tuple[Any, str] | None = None
        served = race if race is not None else self.call(self.current_race)
        if served is not None:
            self.call(self.serve, served, private=None)

    def current_race(self) -> int | None:
        """The race other commands default to (``RaceLog.resolve``: the most recent race a host made), or None
        in a database with no race yet (the host sets one up on the host screen)."""
        try:
            return self.log.resolve(None)
        except HeatlogError:
            return None

    def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn`` on the worker thread (at once when already there) and return its result."""
        if threading.current_thread().name.startswith("heatlog-table"):
            return fn(*args, **kwargs)
        return self.worker.submit(fn, *args, **kwargs).result()

    async def acall(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """:meth:`call` from the event loop, without blocking it."""
        return await asyncio.wrap_future(self.worker.submit(functools.partial(fn, *args, **kwargs)))

    # ---- the race served

    def serve(self, race: int, *, private: bool | None) -> None:
        """Serve ``race`` (the store's lease: no second recorder on it meanwhile)."""
        self.log.resolve(race)
        with self.act_lock:
            old, self.table = self.table, None
            if old is not None:
                old.close()
            self.store.set_served_race(race, private=private)
            table = open_table(self.log, race, self.store, force=self.force)
            table.on_change = self.wake
            self.table = table
            self.error = None
        self.wake()
        if self.announce is not None:
            self.announce(self)

    def close(self) -> None:
        def closing() -> None:
            if self.table is not None:
                self.table.close()
            self.log.close()

        self.call(closing)
        self.worker.shutdown()
        self.store.close()

    def host_url(self) -> str:
        return f"{self.base_url}/h/{self.host_secret}"

    def join_urls(self) -> dict[str, str]:
        if self.table is None:
            return {}
        return {car: f"{self.base_url}/j/{seat.secret}" for car, seat in self.table.seats.items()}

    # ---- live updates

    def wake(self) -> None:
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self._wake_all)

    def _wake_all(self) -> None:
        v = self.table.version if self.table is not None else 0
        for q in list(self.streams):
            with contextlib.suppress(asyncio.QueueFull):
                q.put_nowait(v)

    def viewer(self, request: Request) -> Viewer:
        host = request.cookies.get("hl_host", "")
        if host and same_secret(host, self.host_secret):
            return Viewer("host")
        seat = request.cookies.get("hl_seat", "")
        if seat and self.table is not None:
            secret, _, device = seat.partition(".")
            car = self.table.seat_of(secret, device)
            if car is not None:
                return Viewer("seat", car)
            if any(s.secret == secret for s in self.table.seats.values()):
                return Viewer("watch", taken=True)
        return Viewer("watch")

    def _public(self) -> dict[str, Any]:
        """The public panels, made once per change and shared by every viewer."""
        table = self.table
        assert table is not None
        if self._cache is not None and self._cache[:2] == (table.race, table.version):
            return self._cache[2]
        pub = table.public()
        data = {
            "pub": pub,
            "panels": {
                "status": pages.status_html(pub),
                "cars": pages.cars_html(pub),
                "narration": pages.narration_html(pub),
            },
        }
        self._cache = (table.race, table.version, data)
        return data

    def payload(self, viewer: Viewer, *, raw: bool = False) -> dict[str, Any]:
        """What one viewer sees now: the panels (HTML, escaped) and the cars' places; with ``raw`` the data too."""
        return self.call(self.render, viewer, raw=raw)

    def render(self, viewer: Viewer, *, raw: bool = False) -> dict[str, Any]:
        table = self.table
        if table is None:
            return {"version": -1, "race": None, "panels": {}, "cars": []}
        with table.lock:
            shared = self._public()
            pub = shared["pub"]
            panels = dict(shared["panels"])
            out: dict[str, Any] = {"version": pub["version"], "race": table.race}
            if viewer.role == "host":
                ctls = table.controls("host", None)
                panels["controls"] = pages.controls_html(ctls, host=True)
                panels["seats"] = self.seats_html()
                if raw:
                    out["controls"] = ctls
            elif viewer.role == "seat" and viewer.car is not None:
                ctls = table.controls("seat", viewer.car)
                priv = table.seat_private(viewer.car)
                panels["controls"] = pages.controls_html(ctls)
                panels["private"] = pages.private_html(priv)
                if raw:
                    out["controls"] = ctls
                    out["you"] = priv
            if viewer.taken:
                out["taken"] = True
        out["panels"] = panels
        out["cars"] = [{k: c[k] for k in ("name", "space", "lane", "finished", "place")} for c in pub["cars"]]
        if raw:
            out["public"] = pub
        return out

    def seats_html(self) -> str:
        """The join codes (made again only when a seat gains or changes its phone: a QR code takes a while)."""
        import segno

        table = self.table
        assert table is not None
        key = (table.race, self.base_url, tuple((c, s.device) for c, s in table.seats.items()))
        if self._seats_cache is not None and self._seats_cache[0] == key:
            return self._seats_cache[1]
        seats = []
        for car, url in self.join_urls().items():
            qr = segno.make(url, error="m").svg_inline(scale=3, dark="#111", light="#fff")
            seats.append({"car": car, "url": url, "qr": qr, "phone": table.has_phone(car)})
        html = pages.seats_html(seats)
        self._seats_cache = (key, html)
        return html

    # ---- acting

    def act(self, viewer: Viewer, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """One submission: checked, done once (by its idempotency key), answered in words."""
        action = body.get("action")
        key = body.get("key")
        if not isinstance(action, str) or not isinstance(key, str) or not 8 <= len(key) <= 100:
            return 400, {"ok": False, "error": "a submission needs an action and a key (8 to 100 characters)"}
        if viewer.taken:
            return 409, {
                "ok": False,
                "taken": True,
                "error": "another phone took this seat over: open the join link again to take it back",
            }
        return self.call(self._once, viewer, action, key, body)

    def _once(self, viewer: Viewer, action: str, key: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Done once per key: the key is written as pending (with the log's head) before anything is entered and
        with its answer after, so a retry after a crash in between is answered "recorded" when the log moved
        on from that head (the entry was made), and done when it did not."""
        with self.act_lock:
            full = f"{viewer.who}|{key}"
            table = self.table
            race = table.race if table is not None else 0
            head = self.log.store.head(race)[0] if table is not None else 0
            done = self.store.submission(full)
            if done is not None and not done.get("pending"):
                return 200, {**done, "replayed": True}
            if done is not None and done.get("race") == race and done.get("head") != head:
                answer = {"ok": True, "lines": [["info", "recorded before the server restarted"]], "error": None}
                self.store.put_submission(full, race, viewer.who, answer)
                return 200, {**answer, "replayed": True}
            self.store.put_submission(full, race, viewer.who, {"pending": True, "race": race, "head": head})
            try:
                answer = self._act(viewer, action, body)
            except HeatlogError as err:
                answer = {"ok": False, "error": error_text(err)}
            race = self.table.race if self.table is not None else 0
            self.store.put_submission(full, race, viewer.who, answer)
        return 200, answer

    def _act(self, viewer: Viewer, action: str, body: dict[str, Any]) -> dict[str, Any]:
        text = body.get("text", "")
        car = body.get("car")
        at = body.get("at")  # the question the answering screen showed (Table.moment), or none
        if not isinstance(at, str):
            at = None
        if not isinstance(text, str) or (car is not None and not isinstance(car, str)):
            return {"ok": False, "error": "text and car are words"}
        if viewer.role == "host" and action == "setup":
            return self._setup(body.get("fields"))
        if viewer.role == "host" and action == "resume":
            race = body.get("race")
            if not isinstance(race, int) or isinstance(race, bool):
                return {"ok": False, "error": "which race? a race number"}
            self.serve(race, private=None)
            return {"ok": True, "lines": [["info", f"serving race {race}"]]}
        table = self.table
        if table is None:
            return {"ok": False, "error": "no race is served yet: the host sets one up"}
        out: Outcome
        if viewer.role == "seat":
            assert viewer.car is not None
            if car not in (None, "", viewer.car):
                return {"ok": False, "error": f"this phone acts for {viewer.car} only, not {car}"}
            if action == "plan":
                out = table.submit_plan(viewer.car, text)
            elif action == "answer":
                out = table.answer("seat", viewer.car, text, at=at)
            elif action == "takeback":
                out = table.take_back(viewer.car)
            else:
                return {"ok": False, "error": f"a seat cannot {action!r}"}
            return out.as_dict()
        if viewer.role != "host":
            return {"ok": False, "error": "a spectator's board is read-only: join a seat to play"}
        if action == "plan":
            if not car or car not in table.names:
                return {"ok": False, "error": "which car? a car of this race"}
            out = table.submit_plan(car, text, who="host")  # a phone's car too: its player is away (told)
        elif action == "answer":
            out = table.answer("host", car or None, text, at=at)  # naming a phone's car: acting for it (told)
        elif action == "takeback":
            if not car or car not in table.names or table.has_phone(car):
                return {"ok": False, "error": "the host takes back a plan only for a car without a phone"}
            out = table.take_back_plan(car)
        elif action == "undo":
            reason = body.get("reason", "")
            if not isinstance(reason, str):
                return {"ok": False, "error": "the reason is words"}
            out = table.host_undo(reason[:500], reopen=body.get("reopen") is True)
        elif action == "note":
            out = table.note(text)
        else:
            return {"ok": False, "error": f"unknown action {action!r}"}
        return out.as_dict()

    def _setup(self, fields: Any) -> dict[str, Any]:
        """A new race from the host's form: the set-up questions of ``record --new``, answered in order."""
        if not isinstance(fields, dict):
            return {"ok": False, "error": "the set-up form is missing"}
        mode = str(fields.get("mode") or "table")
        private = mode == "private"
        steps = setup_steps()  # the base's and every module's (Module.setup_steps), as record --new asks them
        values = {k: str(fields.get(k) or "").strip()[:500] for k in steps}
        values["mode"] = "open" if private else mode
        from ..formats.module_data import options_from_flags

        try:  # the modules switched on: the form's checkbox of each module's switch (record --new's flags)
            modules = options_from_flags("record", {param: fields.get(param) is True for param, _ in switches()})
        except HeatlogError as err:
            return {"ok": False, "error": err.message}
        wizard = NewRace(modules=modules)
        for _ in range(len(steps) + 2):
            step = wizard.step
            if step is None:
                break
            said = wizard.answer(values.get(step, ""))
            if said is not None and said.startswith("error"):
                return {"ok": False, "error": f"{step.replace('_', ' ')}: {said.split(': ', 1)[-1]}"}
        race = wizard.create(self.log)
        self.serve(race, private=private)
        return {"ok": True, "race": race, "lines": [["info", f"race {race} created"]]}


def switches() -> list[tuple[str, str]]:
    """The modules' switches the set-up form shows, (parameter, words): ``record --new``'s switches, from the
    registry (engine/module.py: Module.flags; issue 26, build 5), so a module lands on the form from its folder."""
    from ..engine.module import flags_for

    return [(f.param, f.label or f.help) for f in flags_for("record")[1] if f.kind == "bool"]


def module_fields() -> list[tuple[str, str, str, str]]:
    """The modules' set-up questions the form shows as text fields, (name, words, placeholder, the base field it
    follows): ``record --new``'s own steps, from the registry (engine/module.py: Module.setup_steps)."""
    from ..recorder.wizard import module_steps

    return [(step.key, step.label, step.placeholder, step.after) for _, step in module_steps()]


def cars_words() -> str:
    """How the form's cars field types the cars the modules add (``Module.setup_cars``: "; Legends as
    legend:COLOUR", # 19.3), from the registry."""
    from ..engine.module import descriptors

    return "".join(f"; {c.label} as {c.word}:COLOUR" for unit in descriptors() if (c := unit.setup_cars) is not None)


def same_secret(given: str, secret: str) -> bool:
    """Whether ``given`` (a link's, a cookie's or a header's text: any character) is ``secret``, in constant time;
    ``secrets.compare_digest`` refuses a non-ASCII ``str`` with a TypeError, so both are compared as UTF-8."""
    return secrets.compare_digest(given.encode("utf-8", "surrogatepass"), secret.encode("utf-8", "surrogatepass"))


# -------------------------------------------------------------------------------------------------- the app


def _csrf_ok(request: Request) -> bool:
    token = request.cookies.get("hl_csrf", "")
    sent = request.headers.get("x-csrf-token", "")
    if not token or not sent or not same_secret(token, sent):
        return False
    origin = request.headers.get("origin")
    if origin and origin != "null":
        host = request.headers.get("host", "")
        if urlsplit(origin).netloc != host:
            return False
    return True


def _csrf_for(request: Request) -> str:
    token = request.cookies.get("hl_csrf") or request.scope.setdefault("hl_new_csrf", secrets.token_urlsafe(16))
    return str(token)


class SecurityHeaders:
    """Every response: a strict Content-Security-Policy (scripts only from this server), no sniffing, no
    referrer (a join link in a URL never leaks), never framed (pure ASGI: the event stream passes through)."""

    HEADERS = (
        (b"content-security-policy", CSP.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"x-frame-options", b"DENY"),
    )

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + list(self.HEADERS)
            await send(message)

        await self.app(scope, receive, sending)


def make_app(server: Server) -> Starlette:
    async def on_start() -> None:
        server.loop = asyncio.get_running_loop()

    async def poll() -> None:
        while True:  # entries written by another program (heatlog add, heatlog undo) reach every screen
            await asyncio.sleep(1.0)
            table = server.table
            if table is not None:
                with contextlib.suppress(Exception):
                    await server.acall(table.refresh)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await on_start()
        task = asyncio.create_task(poll())
        try:
            yield
        finally:
            task.cancel()

    def html(request: Request, text: str, status: int = 200) -> Response:
        response = HTMLResponse(text, status_code=status)
        if not request.cookies.get("hl_csrf"):
            response.set_cookie("hl_csrf", _csrf_for(request), samesite="strict", max_age=WEEK)
        return response

    async def index(request: Request) -> Response:
        if server.viewer(request).role == "host":
            return RedirectResponse("/host", status_code=303)
        return html(
            request,
            pages.plain_page(
                "heatlog at the table",
                "Scan your seat's code on the host screen to play, or watch the board.",
                link=("/watch", "watch the race"),
            ),
        )

    async def host_login(request: Request) -> Response:
        if not same_secret(request.path_params["secret"], server.host_secret):
            return html(request, pages.plain_page("not the host link", "This link opens nothing."), 404)
        response = RedirectResponse("/host", status_code=303)
        response.set_cookie("hl_host", server.host_secret, httponly=True, samesite="strict", max_age=WEEK)
        return response

    async def board(request: Request, role: str, title: str) -> Response:
        table = server.table
        assert table is not None
        circuit = await server.acall(lambda: pages.circuit(table.session.view, table.race))
        return html(request, pages.board_page(role, _csrf_for(request), title, circuit))

    async def host(request: Request) -> Response:
        if server.viewer(request).role != "host":
            return html(
                request,
                pages.plain_page("host only", "Open the host link printed in the terminal where heatlog serve runs."),
                403,
            )
        if server.table is None:
            return await setup(request)
        return await board(request, "host", f"heatlog — race {server.table.race} (host)")

    async def setup(request: Request) -> Response:
        if server.viewer(request).role != "host":
            return html(request, pages.plain_page("host only", "Open the host link printed in the terminal."), 403)
        races = [
            (r.id, (r.name or "") + f" ({r.event_count} entries, {r.created[:16]})")
            for r in await server.acall(server.log.store.races)
            if not r.meta.get("simulated")
        ][-12:][::-1]
        return html(
            request,
            pages.setup_page(
                _csrf_for(request), builtin_tracks(), races, server.error, switches(), module_fields(), cars_words()
            ),
        )

    async def join(request: Request) -> Response:
        found = server.store.seat_by_secret(request.path_params["secret"])
        table = server.table
        if found is None or table is None or found[0] != table.race or found[1].car not in table.names:
            return html(
                request, pages.plain_page("no such seat", "This join code is not a seat of the race being served."), 404
            )
        race, seat = found
        device = await server.acall(table.join, seat.car)
        response = RedirectResponse("/seat", status_code=303)
        response.set_cookie("hl_seat", f"{seat.secret}.{device}", httponly=True, samesite="strict", max_age=WEEK)
        return response

    async def seat_page(request: Request) -> Response:
        v = server.viewer(request)
        if v.role != "seat" or server.table is None:
            text = (
                "Another phone took this seat over. Open the join link again to take it back."
                if v.taken
                else "Scan your seat's code on the host screen."
            )
            return html(request, pages.plain_page("no seat", text, link=("/watch", "watch the race")), 403)
        return await board(request, "seat", f"heatlog — {v.car}")

    async def watch(request: Request) -> Response:
        if server.table is None:
            return html(request, pages.plain_page("no race yet", "The host has not set up a race yet."))
        return await board(request, "watch", f"heatlog — race {server.table.race}")

    async def view(request: Request) -> Response:
        v = server.viewer(request)
        data = await server.acall(server.render, v, raw=True)
        return JSONResponse(data)

    async def stream(request: Request) -> Response:
        v = server.viewer(request)
        if server.loop is None:
            server.loop = asyncio.get_running_loop()
        try:
            most = int(request.query_params.get("max", "0"))
        except ValueError:
            most = 0
        queue: asyncio.Queue[int] = asyncio.Queue(maxsize=64)
        server.streams.add(queue)
        seat_cookie = request.cookies.get("hl_seat", "")

        async def events() -> AsyncIterator[str]:
            sent, last = 0, -2
            try:
                yield "retry: 1000\n\n"
                while True:
                    viewer = server.viewer(request) if seat_cookie else v
                    if v.role == "seat" and viewer.role != "seat":
                        if viewer.taken:
                            msg = {
                                "error": "another phone took this seat over: open the join link again to take it back"
                            }
                        else:  # the host serves another race now: this seat's link is of the race before
                            served = getattr(server.table, "race", None)
                            msg = {
                                "error": f"the host now serves race {served}: scan your car's new code on the host "
                                "screen (this phone's seat was for the race before)"
                                if served is not None
                                else "the host is setting up another race: scan your car's new code when it starts"
                            }
                        yield f"event: taken\ndata: {json.dumps(msg, allow_nan=False)}\n\n"
                        return
                    data = await server.acall(server.render, viewer)
                    if data["version"] != last or data.get("race") != getattr(server.table, "race", None):
                        last = data["version"]
                        yield f"id: {last}\ndata: {json.dumps(data, allow_nan=False)}\n\n"
                        sent += 1
                        if most and sent >= most:
                            return
                    try:
                        await asyncio.wait_for(queue.get(), timeout=15)
                        while not queue.empty():
                            queue.get_nowait()
                    except TimeoutError:
                        yield ": still here\n\n"
            finally:
                server.streams.discard(queue)

        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        return StreamingResponse(events(), media_type="text/event-stream", headers=headers)

    async def act(request: Request) -> Response:
        if not _csrf_ok(request):
            return JSONResponse(
                {"ok": False, "error": "refused: this page is out of date or not from this table (reload it)"},
                status_code=403,
            )
        try:  # the one safe reader of every door: '[' nested 100,000 deep was a RecursionError, a 500
            body = loads((await request.body())[:100_000].decode("utf-8") or "null", "the submission")
        except (HeatlogError, UnicodeDecodeError):
            body = None
        if not isinstance(body, dict):
            return JSONResponse({"ok": False, "error": "the submission is not a JSON object"}, status_code=400)
        v = server.viewer(request)
        status, answer = await server.acall(server.act, v, body)
        return JSONResponse(answer, status_code=status)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS:
            return Response("not found", status_code=404, media_type="text/plain")
        return Response(pages.asset(name), media_type=ASSETS[name], headers={"Cache-Control": "no-cache"})

    async def internal(request: Request, exc: Exception) -> Response:
        log.exception("request failed", exc_info=exc)
        return JSONResponse(
            {"ok": False, "error": "something went wrong on the server: the entry was not taken; try again"},
            status_code=500,
        )

    routes = [
        Route("/", index),
        Route("/h/{secret}", host_login),
        Route("/host", host),
        Route("/host/setup", setup),
        Route("/j/{secret}", join),
        Route("/seat", seat_page),
        Route("/watch", watch),
        Route("/api/view", view),
        Route("/stream", stream),
        Route("/api/act", act, methods=["POST"]),
        Route("/static/{name}", static),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={Exception: internal},
        middleware=[Middleware(SecurityHeaders)],
    )

    return app
