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
from collections.abc import Callable
from typing import Any

import attrs
import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from sim.batch import BatchSpec
from sim.day.file import Day
from sim.decide.compare import MAX_VARIANTS
from sim.decide.paired import Variant
from sim.decide.tune import parse_target, parse_vary
from sim.errors import InputError, ScenarioError
from sim.scenario import IMPLEMENTED_SYSTEMS
from sim.scenario.show import bestiary, entry_line, plain
from sim.serve.compose import NotAForm, check_form, from_yaml, to_yaml
from sim.serve.jobs import Busy, Job, Jobs
from sim.serve.plays import CHUNK, Execution, play_batch, play_compare, play_tune
from sim.serve.spreads import DEFAULT_N as SPREAD_N
from sim.serve.spreads import spread_job
from sim.serve.workspace import Workspace, input_problems, input_warnings, problem_data

HERE = pathlib.Path(__file__).parent
MAX_BATCH = 100_000  # battles of one batch (with precision, the cap)
MAX_PAIRED = 20_000  # battles a variant of a compare or a value of a tune
MAX_SEED = 2**63 - 1
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

    def batch_job(self, body: dict[str, Any]) -> tuple[Job, Callable[[Job], dict[str, Any]]]:
        n = _int(body, "n", 1000, 1, MAX_BATCH)
        seed = _int(body, "seed", 1, 0, MAX_SEED)
        precision = _fraction(body, "precision")
        folder = self.workspace.folder()
        subject = self.scenario(body, folder)
        spec = BatchSpec(n=n, seed=seed, chunk=min(CHUNK, n), precision=precision, logs="none")
        job = Job(secrets.token_hex(8), "batch", folder, n)
        return job, lambda j: play_batch(j, subject, spec, self.execution, self.workspace.bestiary)

    def compare_job(self, body: dict[str, Any]) -> tuple[Job, Callable[[Job], dict[str, Any]]]:
        n = _int(body, "n", 2000, 1, MAX_PAIRED)
        seed = _int(body, "seed", 1, 0, MAX_SEED)
        precision = _fraction(body, "precision")
        wanted = body.get("variants")
        if not isinstance(wanted, list) or not 2 <= len(wanted) <= MAX_VARIANTS:
            raise BadRequest(f"variants: give 2 to {MAX_VARIANTS} variants, each {{name, set: [...]}}")
        folder = self.workspace.folder()
        variants = []
        for k, variant in enumerate(wanted):
            name, overrides = _variant(variant, k)
            here = folder / str(k)
            here.mkdir()
            variants.append(Variant(name, self._scenario_only(body, here, overrides)))
        job = Job(secrets.token_hex(8), "compare", folder, n)
        return job, lambda j: play_compare(j, variants, seed, n, precision, self.execution)

    def tune_job(self, body: dict[str, Any]) -> tuple[Job, Callable[[Job], dict[str, Any]]]:
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
        folder = self.workspace.folder()
        points = []
        for value in values:
            here = folder / str(value)
            here.mkdir()
            label = f"{path}={value}"
            points.append((value, Variant(label, self._scenario_only(body, here, [label]))))
        job = Job(secrets.token_hex(8), "tune", folder, n * len(values))
        return job, lambda j: play_tune(j, points, target, seed, n, precision, self.execution)

    def spread_job(self, body: dict[str, Any]) -> tuple[Job, Callable[[Job], dict[str, Any]]]:
        n = _int(body, "n", SPREAD_N, 1, MAX_PAIRED)
        seed = _int(body, "seed", 1, 0, MAX_SEED)
        try:
            return spread_job(body, self.scenario, self.workspace.folder(), n, seed, self.execution)
        except ValueError as exc:
            raise BadRequest(str(exc)) from None

    def _scenario_only(self, body: dict[str, Any], folder: pathlib.Path, overrides: list[str]) -> Any:
        subject = self.scenario(body, folder, overrides)
        if isinstance(subject, Day):
            raise BadRequest("compare and tune on the page take an encounter, not a day")
        return subject


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
    try:
        body = await request.json()
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


def routes(server: Server) -> list[Any]:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True)
    kinds = {"batch": server.batch_job, "compare": server.compare_job, "tune": server.tune_job,
             "spread": server.spread_job}

    async def page(request: Request) -> Response:
        html = env.get_template("index.html").render(systems=IMPLEMENTED_SYSTEMS)
        return HTMLResponse(html, headers={"content-security-policy": PAGE_POLICY})

    async def api_bestiary(request: Request) -> Response:
        rules = request.query_params.get("rules", "d20")
        if rules not in IMPLEMENTED_SYSTEMS:
            raise BadRequest(f"rules: must be one of {', '.join(IMPLEMENTED_SYSTEMS)}")
        text = request.query_params.get("q", "").strip().lower()
        try:
            dirs, found = await run_in_threadpool(bestiary, server.workspace.bestiary, [rules])
        except ScenarioError as exc:
            raise BadRequest("a bestiary file has problems", input_problems(exc)) from None
        entries = [{"name": e.name, "group": pathlib.Path(e.source.file).stem, "line": entry_line(e),
                    "description": str(e.fields.get("description", "")), "fields": plain(e.fields)}
                   for _, e in sorted(found[rules].items())
                   if text in e.name.lower() or text in str(e.fields.get("description", "")).lower()]
        return JSONResponse({"rules": rules, "searched": [str(d) for d in dirs], "entries": entries})

    async def api_validate(request: Request) -> Response:
        body = await _body(request)
        folder = server.workspace.folder()
        try:
            subject = await run_in_threadpool(server.scenario, body, folder)
        except BadRequest as exc:
            return JSONResponse({"ok": False, "problems": exc.problems or [{"text": str(exc)}],
                                 "warnings": exc.warnings})
        return JSONResponse({"ok": True, "kind": "day" if isinstance(subject, Day) else "scenario",
                             "problems": [], "warnings": [problem_data(w) for w in subject.warnings]})

    async def api_compose(request: Request) -> Response:
        body = await _body(request)
        try:
            form = check_form(body.get("form"))
        except ValueError as exc:
            raise BadRequest(f"form: {exc}") from None
        return JSONResponse({"yaml": to_yaml(form)})

    async def api_parse(request: Request) -> Response:
        text = (await _body(request)).get("scenario")
        if not isinstance(text, str):
            raise BadRequest("scenario: the scenario's YAML text is needed")
        try:
            return JSONResponse({"form": from_yaml(text)})
        except NotAForm as exc:
            return JSONResponse({"form": None, "why": str(exc)})

    def waited(kind: str) -> Callable[[Request], Any]:
        async def handler(request: Request) -> Response:
            body = await _body(request)
            job, work = await run_in_threadpool(kinds[kind], body)
            server.jobs.start(job, work)
            while job.status == "running":
                await asyncio.sleep(0.05)
            if job.status != "done":
                raise BadRequest(f"the {kind} did not finish ({job.status})", job.problems)
            return JSONResponse(job.result)
        return handler

    async def start_job(request: Request) -> Response:
        body = await _body(request)
        kind = body.get("kind", "batch")
        if kind not in kinds:
            raise BadRequest(f"kind: must be one of {', '.join(kinds)}")
        job, work = await run_in_threadpool(kinds[kind], body)
        server.jobs.start(job, work)
        return JSONResponse(job.view(), status_code=202)

    async def job_view(request: Request) -> Response:
        job = server.jobs.get(request.path_params["job"])
        if job is None:
            return JSONResponse({"error": "no such job (finished jobs are kept a while)"}, status_code=404)
        if request.method == "DELETE":
            server.jobs.cancel(job.id)
        return JSONResponse(job.view())

    async def job_report(request: Request) -> Response:
        job = server.jobs.get(request.path_params["job"])
        if job is None or job.run_folder is None or job.status != "done":
            return JSONResponse({"error": "no finished batch with that id"}, status_code=404)
        from sim.report import REPORT, write_report  # matplotlib and the templates: when asked

        path = job.run_folder / REPORT
        if not path.is_file():  # written once: a report already there is never replaced
            path = await run_in_threadpool(write_report, job.run_folder, server.workspace.bestiary)
        return FileResponse(path, media_type="text/html")

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


def make_app(server: Server) -> Starlette:
    async def headers(request: Request, call_next: Callable[[Request], Any]) -> Response:
        response = await call_next(request)
        response.headers["referrer-policy"] = "no-referrer"  # the token is in the first address
        response.headers["x-content-type-options"] = "nosniff"
        response.headers["cache-control"] = "no-store"
        return response

    return Starlette(routes=routes(server), middleware=[Middleware(BaseHTTPMiddleware, dispatch=headers)])
