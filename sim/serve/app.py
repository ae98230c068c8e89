"""The routes: the page, its static files, the JSON API under ``/api/``, and job reports.

Starlette (an ASGI toolkit with no build step, used under FastAPI) serves both
the page and the API; uvicorn runs it (``sim.serve.server``). Every request
passes ``sim.serve.guard`` first. Handlers parse and bound the request, then
hand the work to a job (``sim.serve.jobs``) running the CLI's own code
(``sim.serve.plays``). The API is documented in the docs (Reference > sim
serve).
"""

from __future__ import annotations

import asyncio
import pathlib
import secrets
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from sim.batch import BatchSpec
from sim.day.file import Day
from sim.decide.compare import MAX_VARIANTS
from sim.decide.paired import Variant
from sim.decide.tune import parse_target, parse_vary
from sim.errors import InputError, ScenarioError, warnings_of
from sim.io.jsonin import JSONLimitError, parse_json
from sim.scenario import IMPLEMENTED_SYSTEMS
from sim.scenario.bestiary import Entry
from sim.scenario.show import bestiary, entry_line, plain
from sim.serve.compose import NotAForm, check_form, from_yaml, to_yaml
from sim.serve.jobs import Busy, Job, Jobs
from sim.serve.plays import CHUNK, Execution, play_batch, play_compare, play_tune
from sim.serve.workspace import POSTED, Workspace, discard, input_problems, input_warnings, problem_data

HERE = pathlib.Path(__file__).parent
MAX_BATCH = 100_000  # battles of one batch (with precision, the cap)
MAX_PAIRED = 20_000  # battles a variant of a compare or a value of a tune
MAX_SEED = 2**63 - 1
KINDS = ("batch", "compare", "tune")
EVERY_ANSWER = [(b"referrer-policy", b"no-referrer"),  # the token is in the first address
                (b"x-content-type-options", b"nosniff"), (b"cache-control", b"no-store")]
PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
               " connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")


class BadRequest(Exception):
    """A request the API cannot take: 400 with its message (and a scenario's problems)."""

    def __init__(self, message: str, problems: list[dict[str, Any]] | None = None,
                 warnings: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or []
        self.warnings = warnings or []


@attrs.define
class Server:
    """What every request shares."""

    workspace: Workspace
    execution: Execution
    jobs: Jobs = attrs.field(factory=Jobs)

    # -- reading a request ------------------------------------------------------------

    def scenario(self, body: dict[str, Any], folder: pathlib.Path,
                 overrides: list[str] | None = None) -> Any:
        text = body.get("scenario")
        if not isinstance(text, str) or not text.strip():
            raise BadRequest("scenario: the scenario's YAML text is needed")
        try:
            return self.workspace.load(text, folder, overrides or [])
        except InputError as exc:
            raise BadRequest("the scenario has problems", input_problems(exc), input_warnings(exc)) from None

    # -- the work of each kind of job ------------------------------------------------

    async def started(self, kind: str, body: dict[str, Any], kept: bool) -> Job:
        """A job of ``kind`` started in a folder of its own (removed at once if it cannot
        start: a scenario with problems, or too many jobs)."""
        folder = self.workspace.folder()
        try:
            job, work = await run_in_threadpool(getattr(self, f"{kind}_job"), body, folder)
            job.kept = kept
            self.jobs.start(job, work)
        except BaseException:
            discard(folder)
            raise
        return job

    def batch_job(self, body: dict[str, Any], folder: pathlib.Path
                  ) -> tuple[Job, Callable[[Job], dict[str, Any]]]:
        n = _int(body, "n", 1000, 1, MAX_BATCH)
        seed = _int(body, "seed", 1, 0, MAX_SEED)
        precision = _fraction(body, "precision")
        subject = self.scenario(body, folder)
        spec = BatchSpec(n=n, seed=seed, chunk=min(CHUNK, n), precision=precision, logs="none")
        job = Job(secrets.token_hex(8), "batch", folder, n)
        return job, lambda j: play_batch(j, subject, spec, self.execution, self.workspace.bestiary)

    def compare_job(self, body: dict[str, Any], folder: pathlib.Path
                    ) -> tuple[Job, Callable[[Job], dict[str, Any]]]:
        n = _int(body, "n", 2000, 1, MAX_PAIRED)
        seed = _int(body, "seed", 1, 0, MAX_SEED)
        precision = _fraction(body, "precision")
        wanted = body.get("variants")
        if not isinstance(wanted, list) or not 2 <= len(wanted) <= MAX_VARIANTS:
            raise BadRequest(f"variants: give 2 to {MAX_VARIANTS} variants, each {{name, set: [...]}}")
        variants = []
        for k, variant in enumerate(wanted):
            name, overrides = _variant(variant, k)
            here = folder / str(k)
            here.mkdir()
            variants.append(Variant(name, self._scenario_only(body, here, overrides)))
        job = Job(secrets.token_hex(8), "compare", folder, n)
        return job, lambda j: _as_posted(play_compare(j, variants, seed, n, precision, self.execution),
                                         variants)

    def tune_job(self, body: dict[str, Any], folder: pathlib.Path
                 ) -> tuple[Job, Callable[[Job], dict[str, Any]]]:
        n = _int(body, "n", MAX_PAIRED, 1, MAX_PAIRED)
        seed = _int(body, "seed", 1, 0, MAX_SEED)
        precision = _fraction(body, "precision") or 0.02
        try:
            target = parse_target(str(body.get("target", "")))
            path, values = parse_vary(str(body.get("vary", "")))
        except InputError as exc:
            raise BadRequest(str(exc).replace("sim tune: --", "")) from None
        if len(values) > 20:
            raise BadRequest("vary: at most 20 values on the page (sim tune takes more)")
        points = []
        for value in values:
            here = folder / str(value)
            here.mkdir()
            label = f"{path}={value}"
            points.append((value, Variant(label, self._scenario_only(body, here, [label]))))
        job = Job(secrets.token_hex(8), "tune", folder, n * len(values))
        return job, lambda j: _as_posted(play_tune(j, points, target, seed, n, precision, self.execution),
                                         [v for _, v in points])

    def _scenario_only(self, body: dict[str, Any], folder: pathlib.Path, overrides: list[str]) -> Any:
        subject = self.scenario(body, folder, overrides)
        if isinstance(subject, Day):
            raise BadRequest("compare and tune on the page take an encounter, not a day")
        return subject


def _as_posted(result: dict[str, Any], variants: Sequence[Variant]) -> dict[str, Any]:
    """A compare's or tune's result as the CLI gives it: its ``warnings`` (each key once), and
    each variant's scenario named as the page names it, not by the server's own path."""
    result["warnings"] = [str(w) for w in warnings_of(w for v in variants for w in v.scenario.warnings)]
    if "scenarios" in result:
        result["scenarios"] = [POSTED for _ in result["scenarios"]]
    if "scenario" in result:
        result["scenario"] = POSTED
    return result


def _int(body: dict[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    value = body.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise BadRequest(f"{key}: must be a whole number from {lo} to {hi}")
    return value


def _fraction(body: dict[str, Any], key: str) -> float | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value < 1:
        raise BadRequest(f"{key}: must be a fraction between 0 and 1, e.g. 0.02")
    return float(value)


def _variant(value: object, k: int) -> tuple[str, list[str]]:
    if not isinstance(value, dict):
        raise BadRequest(f"variants[{k}]: must be {{name, set: [PATH=VALUE, ...]}}")
    name, overrides = value.get("name", f"variant {k + 1}"), value.get("set", [])
    if not isinstance(name, str) or not isinstance(overrides, list) or not all(
            isinstance(o, str) for o in overrides):
        raise BadRequest(f"variants[{k}]: name is text, set a list of PATH=VALUE texts")
    return name, overrides


# -- handlers ---------------------------------------------------------------------------------


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object, parsed off the event loop (a megabyte of it takes a while)."""
    return await run_in_threadpool(_parsed, await request.body())


def _parsed(raw: bytes) -> dict[str, Any]:
    try:
        body = parse_json(raw.decode("utf-8"), constants=False)
    except UnicodeDecodeError:
        raise BadRequest("the body must be JSON (UTF-8)") from None
    except JSONLimitError as exc:
        raise BadRequest(f"the body must be JSON this server reads: {exc.reason}") from None
    except ValueError:
        raise BadRequest("the body must be JSON") from None
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    return body


def _handled(handler: Callable[..., Any]) -> Callable[[Request], Any]:
    """A handler whose BadRequest, Busy and a scenario's problems become JSON answers."""
    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except BadRequest as exc:
            return JSONResponse({"error": str(exc), "problems": exc.problems, "warnings": exc.warnings},
                                status_code=400)
        except Busy as exc:
            return JSONResponse({"error": str(exc)}, status_code=429)
    return wrapped


async def _waited(request: Request, job: Job) -> None:
    """Until the job ends; a client that hangs up cancels it (its slot is someone else's)."""
    try:
        while job.status == "running":
            if await request.is_disconnected():
                job.cancel.set()
            await asyncio.sleep(0.05)
    finally:
        if job.status == "running":  # this handler was cancelled: nobody waits for the job
            job.cancel.set()


def routes(server: Server) -> list[Any]:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True)
    workspace = server.workspace

    async def page(request: Request) -> Response:
        html = env.get_template("index.html").render(systems=IMPLEMENTED_SYSTEMS)
        return HTMLResponse(html, headers={"content-security-policy": PAGE_POLICY})

    def listed(rules: str) -> tuple[list[pathlib.Path], dict[str, dict[str, Entry]]]:
        with workspace.confined():
            return bestiary(workspace.bestiary, [rules])

    async def api_bestiary(request: Request) -> Response:
        rules = request.query_params.get("rules", "d20")
        if rules not in IMPLEMENTED_SYSTEMS:
            raise BadRequest(f"rules: must be one of {', '.join(IMPLEMENTED_SYSTEMS)}")
        text = request.query_params.get("q", "").strip().lower()
        try:
            dirs, found = await run_in_threadpool(listed, rules)
        except ScenarioError as exc:
            raise BadRequest("a bestiary file has problems", input_problems(exc)) from None
        entries = [{"name": e.name, "group": pathlib.Path(e.source.file).stem, "line": entry_line(e),
                    "description": str(e.fields.get("description", "")), "fields": plain(e.fields)}
                   for _, e in sorted(found[rules].items())
                   if text in e.name.lower() or text in str(e.fields.get("description", "")).lower()]
        return JSONResponse({"rules": rules, "searched": [str(d) for d in dirs], "entries": entries})

    def validated(body: dict[str, Any]) -> dict[str, Any]:
        with workspace.scratch() as folder:
            try:
                subject = server.scenario(body, folder)
            except BadRequest as exc:
                return {"ok": False, "problems": exc.problems or [{"text": str(exc)}],
                        "warnings": exc.warnings}
        return {"ok": True, "kind": "day" if isinstance(subject, Day) else "scenario",
                "problems": [], "warnings": [problem_data(w) for w in subject.warnings]}

    async def api_validate(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(validated, await _body(request)))

    def composed(body: dict[str, Any]) -> str:
        try:
            return to_yaml(check_form(body.get("form")))
        except ValueError as exc:
            raise BadRequest(f"form: {exc}") from None

    async def api_compose(request: Request) -> Response:
        return JSONResponse({"yaml": await run_in_threadpool(composed, await _body(request))})

    def parsed(text: str) -> dict[str, Any]:
        try:
            return {"form": from_yaml(text)}
        except NotAForm as exc:
            return {"form": None, "why": str(exc)}

    async def api_parse(request: Request) -> Response:
        text = (await _body(request)).get("scenario")
        if not isinstance(text, str):
            raise BadRequest("scenario: the scenario's YAML text is needed")
        return JSONResponse(await run_in_threadpool(parsed, text))

    def waited(kind: str) -> Callable[[Request], Any]:
        async def handler(request: Request) -> Response:
            job = await server.started(kind, await _body(request), kept=False)
            await _waited(request, job)
            if job.status != "done":
                raise BadRequest(f"the {kind} did not finish ({job.status})", job.problems)
            return JSONResponse(job.result)
        return handler

    async def start_job(request: Request) -> Response:
        body = await _body(request)
        kind = body.get("kind", "batch")
        if not isinstance(kind, str) or kind not in KINDS:
            raise BadRequest(f"kind: must be one of {', '.join(KINDS)}")
        job = await server.started(kind, body, kept=True)
        return JSONResponse(job.view(), status_code=202)

    async def job_view(request: Request) -> Response:
        job = server.jobs.get(request.path_params["job"])
        if job is None:
            return JSONResponse({"error": "no such job (finished jobs are kept a while)"}, status_code=404)
        if request.method == "DELETE":
            server.jobs.cancel(job.id)
        return JSONResponse(job.view())

    def report(run_folder: pathlib.Path) -> pathlib.Path:
        from sim.report import REPORT, write_report  # matplotlib and the templates: when asked

        path = run_folder / REPORT
        if path.is_file():  # written once: a report already there is never replaced
            return path
        with workspace.confined():
            return write_report(run_folder, workspace.bestiary)

    async def job_report(request: Request) -> Response:
        job = server.jobs.get(request.path_params["job"])
        if job is None or job.run_folder is None or job.status != "done":
            return JSONResponse({"error": "no finished batch with that id"}, status_code=404)
        return FileResponse(await run_in_threadpool(report, job.run_folder), media_type="text/html")

    handled = {name: _handled(fn) for name, fn in {
        "bestiary": api_bestiary, "validate": api_validate, "compose": api_compose, "parse": api_parse,
        "batch": waited("batch"), "compare": waited("compare"), "tune": waited("tune"),
        "jobs": start_job, "job": job_view}.items()}
    return [
        Route("/", page),
        Route("/api/bestiary", handled["bestiary"]),
        Route("/api/validate", handled["validate"], methods=["POST"]),
        Route("/api/compose", handled["compose"], methods=["POST"]),
        Route("/api/parse", handled["parse"], methods=["POST"]),
        Route("/api/batch", handled["batch"], methods=["POST"]),
        Route("/api/compare", handled["compare"], methods=["POST"]),
        Route("/api/tune", handled["tune"], methods=["POST"]),
        Route("/api/jobs", handled["jobs"], methods=["POST"]),
        Route("/api/jobs/{job}", handled["job"], methods=["GET", "DELETE"]),
        Route("/jobs/{job}/report", job_report),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]


def make_app(server: Server) -> Callable[..., Any]:
    """The routes behind the headers every answer carries. A plain ASGI wrapper, not
    Starlette's BaseHTTPMiddleware: under that, a handler never hears that its client left."""
    inner = Starlette(routes=routes(server))

    async def app(scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *EVERY_ANSWER]
            await send(message)

        await inner(scope, receive, sending if scope["type"] == "http" else send)

    return app
