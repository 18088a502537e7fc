"""Uses a Python client generated from the served OpenAPI document (openapi-python-client), as an app developer of
another ecosystem would, without a network: imports every module, builds every request body from the document's
request examples through the client's own models and request builders, makes every call over a transport that
answers the documented success (checking the method, path, headers and body that reach it), and parses every
documented example answer through the client's own response parsers. Prints one JSON line: the counts and every problem found.

Usage: python check_client.py <openapi.json> <directory holding the generated package wallet_client>
"""

import datetime
import importlib
import inspect
import json
import pkgutil
import sys
import traceback
import typing
import uuid

DOCUMENT, PACKAGE_DIR = sys.argv[1], sys.argv[2]
sys.path.insert(0, PACKAGE_DIR)

from openapi_python_client.strings import snake_case  # noqa: E402  (the generator's own naming of modules)

import wallet_client  # noqa: E402
from wallet_client.client import AuthenticatedClient  # noqa: E402
from wallet_client.types import UNSET, File, Unset  # noqa: E402
import httpx  # noqa: E402

problems: list[str] = []
counts = {"modules": 0, "operations": 0, "bodies": 0, "calls": 0, "answers": 0, "answersCompared": 0}


def problem(where: str, error: BaseException | str) -> None:
    text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    problems.append(f"{where}: {text}")


# 1. Every module imports.
modules: dict[str, typing.Any] = {}
for info in pkgutil.walk_packages(wallet_client.__path__, "wallet_client."):
    try:
        module = importlib.import_module(info.name)
        modules[info.name] = module
        counts["modules"] += 1
    except BaseException as error:  # noqa: BLE001
        problem(f"import {info.name}", error)

with open(DOCUMENT, encoding="utf-8") as handle:
    document = json.load(handle)


def resolve(node: typing.Any) -> typing.Any:
    while isinstance(node, dict) and "$ref" in node:
        target: typing.Any = document
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def examples_of(media: dict) -> list[tuple[str, typing.Any]]:
    found = []
    if "example" in media:
        found.append(("example", media["example"]))
    for name, example in (media.get("examples") or {}).items():
        example = resolve(example)
        if "value" in example:
            found.append((name, example["value"]))
    return found


def normalise(value: typing.Any) -> typing.Any:
    """JSON as the wire carries it; date-times compared as instants (the client writes +00:00 where we write Z)."""
    if isinstance(value, dict):
        return {k: normalise(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v) for v in value]
    if isinstance(value, str) and len(value) >= 20 and value[4:5] == "-" and value[10:11] == "T":
        try:
            return datetime.datetime.fromisoformat(value.replace("Z", "+00:00")).isoformat()
        except ValueError:
            return value
    return value


def sample(schema: typing.Any, name: str) -> typing.Any:
    """A value for a parameter the request builder requires, from its schema."""
    schema = resolve(schema or {})
    if "example" in schema:
        value = schema["example"]
    elif schema.get("enum"):
        value = schema["enum"][0]
    elif schema.get("format") == "uuid":
        value = str(uuid.uuid4())
    elif schema.get("type") == "integer":
        value = schema.get("minimum", 1)
    else:
        value = f"sample-{name}"
    if schema.get("format") == "uuid":
        return uuid.UUID(str(value))
    return value


def body_types(annotation: typing.Any) -> list[type]:
    members = typing.get_args(annotation) or (annotation,)
    return [m for m in members if m is not Unset and m is not type(None) and isinstance(m, type)]


def file_fields(body_type: type) -> set[str]:
    hints = typing.get_type_hints(body_type)
    return {snake for snake, hint in hints.items() if File in (typing.get_args(hint) or (hint,))}


def build_body(body_type: type, media_type: str, example: dict) -> typing.Any:
    if media_type == "multipart/form-data":
        # A file's bytes cannot be written in JSON: the example names the file, the app sends its bytes.
        files = file_fields(body_type)
        example = {key: (b"\xff\xd8\xff\xe0 jpeg" if snake_case(key) in files else value) for key, value in example.items()}
    return body_type.from_dict(example)


client = AuthenticatedClient(base_url="http://wallet.invalid", token="token", raise_on_unexpected_status=True)
api_modules = {name.rsplit(".", 1)[-1]: module for name, module in modules.items() if name.startswith("wallet_client.api.")}

for path, item in document["paths"].items():
    for method, operation in item.items():
        if not isinstance(operation, dict) or "operationId" not in operation:
            continue
        operation_id = operation["operationId"]
        counts["operations"] += 1
        module = api_modules.get(snake_case(operation_id))
        if module is None:
            problem(operation_id, "no module generated")
            continue
        # 2. Every request body, from each of the document's examples, through the client's models and builder.
        signature = inspect.signature(module._get_kwargs)
        hints = typing.get_type_hints(module._get_kwargs)
        parameters = {snake_case(p["name"]): resolve(p) for p in (item.get("parameters", []) + operation.get("parameters", []))}
        arguments: dict[str, typing.Any] = {}
        for name, parameter in signature.parameters.items():
            if name == "body" or parameter.default is not inspect.Parameter.empty:
                continue
            spec = parameters.get(name)
            if spec is None:
                problem(operation_id, f"argument {name} is not a parameter of the document")
                continue
            arguments[name] = sample(spec.get("schema"), name)
        request_body = resolve(operation.get("requestBody"))
        built = []
        for media_type, media in (request_body or {}).get("content", {}).items():
            candidates = body_types(hints.get("body"))
            kind = "files" if media_type == "multipart/form-data" else "json"
            matching = [t for t in candidates if ("Files" in t.__name__) == (kind == "files")] or candidates
            for example_name, example in examples_of(media):
                where = f"{operation_id} request {media_type} {example_name}"
                try:
                    if not matching:
                        raise TypeError("the request builder takes no body")
                    model = build_body(matching[0], media_type, example)
                    kwargs = module._get_kwargs(**arguments, body=model)
                    counts["bodies"] += 1
                    built.append((media_type, model))
                    if media_type == "application/json":
                        if normalise(kwargs.get("json")) != normalise(example):
                            problem(where, f"sent {json.dumps(kwargs.get('json'))[:300]} for {json.dumps(example)[:300]}")
                    else:
                        request = httpx.Request(kwargs["method"], "http://wallet.invalid" + kwargs["url"], files=kwargs["files"])
                        sent = request.read()
                        for key in example:
                            if f'name="{key}"'.encode() not in sent:
                                problem(where, f"field {key} is not in the multipart body")
                except BaseException as error:  # noqa: BLE001
                    problem(where, error)
                    traceback.print_exc(file=sys.stderr)
        # 3. The call itself, as an app makes it, over a transport that answers the documented success: what reaches
        # the wire is the operation's method, path, headers and body.
        success = next(
            (
                (int(status), media_type, examples_of(media)[0][1])
                for status, response in operation.get("responses", {}).items()
                if status.startswith("2")
                for media_type, media in (resolve(response).get("content") or {}).items()
                if "json" in media_type and examples_of(media)
            ),
            None,
        ) or next(
            (
                # A success without an example (the document itself): any JSON object.
                (int(status), "application/json", {}) if "application/json" in (resolve(response).get("content") or {}) else (int(status), None, None)
                for status, response in operation.get("responses", {}).items()
                if status.startswith("2")
            ),
            (200, None, None),
        )
        seen: list[httpx.Request] = []

        def answer(request: httpx.Request) -> httpx.Response:
            seen.append(request)
            status, media_type, example = success
            if example is None:
                return httpx.Response(status)
            return httpx.Response(status, json=example, headers={"content-type": media_type})

        wire = AuthenticatedClient(base_url="http://wallet.invalid", token="token", raise_on_unexpected_status=True)
        wire.set_httpx_client(httpx.Client(base_url="http://wallet.invalid", transport=httpx.MockTransport(answer)))
        # The Idempotency-Key as a string: the generated code types it as a UUID and httpx cannot write one into a
        # header (docs/api-conventions.md says so to app developers).
        as_sent = {k: (str(v) if isinstance(v, uuid.UUID) else v) for k, v in arguments.items()}
        for media_type, model in built or [(None, None)]:
            where = f"{operation_id} call {media_type or ''}".rstrip()
            try:
                seen.clear()
                result = module.sync_detailed(client=wire, **as_sent, **({"body": model} if model is not None else {}))
                counts["calls"] += 1
                request = seen[0]
                expected_path = path
                for name, value in as_sent.items():
                    spec = parameters.get(name)
                    if spec and spec.get("in") == "path":
                        expected_path = expected_path.replace("{" + spec["name"] + "}", str(value))
                if request.method != method.upper() or request.url.path != expected_path:
                    problem(where, f"sent {request.method} {request.url.path}, documented {method.upper()} {expected_path}")
                for name, value in as_sent.items():
                    spec = parameters.get(name)
                    if spec and spec.get("in") == "header" and request.headers.get(spec["name"]) != str(value):
                        problem(where, f"header {spec['name']} sent as {request.headers.get(spec['name'])!r}")
                if media_type == "application/json" and normalise(json.loads(request.content)) != normalise(model.to_dict()):
                    problem(where, "the JSON sent is not the body built")
                if media_type == "multipart/form-data" and not request.headers["content-type"].startswith("multipart/form-data"):
                    problem(where, f"sent as {request.headers['content-type']}")
                if success[2] is not None and result.parsed is None:
                    problem(where, "the documented answer parsed as nothing")
            except BaseException as error:  # noqa: BLE001
                problem(where, error)
                traceback.print_exc(file=sys.stderr)
        # 4. Every documented example answer, through the client's own parser for its status.
        for status, response in operation.get("responses", {}).items():
            response = resolve(response)
            for media_type, media in (response.get("content") or {}).items():
                if "json" not in media_type:
                    continue
                for example_name, example in examples_of(media):
                    where = f"{operation_id} answer {status} {example_name}"
                    try:
                        answer = httpx.Response(int(status), json=example, headers={"content-type": media_type})
                        parsed = module._parse_response(client=client, response=answer)
                        counts["answers"] += 1
                        if parsed is None:
                            problem(where, "parsed as nothing")
                        elif hasattr(parsed, "to_dict"):
                            counts["answersCompared"] += 1
                            again = parsed.to_dict()
                            if normalise(again) != normalise(example):
                                problem(where, f"read back as {json.dumps(again, default=str)[:300]} from {json.dumps(example)[:300]}")
                    except BaseException as error:  # noqa: BLE001
                        problem(where, error)

print(json.dumps({"counts": counts, "problems": problems}))
