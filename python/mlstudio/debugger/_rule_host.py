"""The rule process of a custom Python rule: ``python -m mlstudio.debugger._rule_host``.

The studio's controller starts one per custom rule of a job (SageMaker's ``Rule.custom``) and
talks to it over its stdin and stdout, one JSON object per line:

stdin
  line 1: ``{"config": {"name", "source", "rule_to_invoke", "rule_parameters", "job", "home",
  "debug_output"}}`` (``cli``, the mlstudio binary, is optional: else $MLSTUDIO_CLI or PATH);
  then the job's wire event lines as the engine encodes them, in arrival order;
  ``{"end": true}`` once the job ended: the steps left are evaluated and the process exits 0.
  End of input counts as the end.
stdout (nothing else is written there: the rule's prints go to stderr)
  ``{"ack": n}``: n more lines were handled since the previous ack (every non-empty line after
  the config line, the ones ignored included, the end line not), sent after each batch read, so
  the acks add up to the lines sent;
  ``{"finding": {"step", "time", "message", "device"}}`` when ``invoke_at_step(step)`` returned a
  truthy value or raised RuleEvaluationConditionMet (device: the last tensor the rule asked for);
  ``{"error": text}`` when the file does not load, the class is missing or cannot be built, or
  ``invoke_at_step`` raises anything but the errors that skip a step; then the process exits 1.

The rule object is built as SageMaker's rule containers build it: ``cls(base_trial, **params)``,
every parameter a string. Its trial is a LiveTrial: the job's tensor and metric events with the
smdebug reading API. ``invoke(step)`` runs once per train step the events carried, in order,
when the step is complete: every rank that sent data of it has moved on (sent data of a later
step, or its ``step`` event of that step), or the job ended. Ranks write their events in order,
but ranks' batches arrive in any order, so one rank's later steps do not complete another's.
Late data of a step already evaluated is kept for later queries, not evaluated again. A step without
the rule's data (TensorUnavailableForStep, TensorUnavailable, StepUnavailable,
StepNotYetAvailable) is skipped, noted on stderr; NoMoreData or RuleEvaluationConditionMet with
``end_of_rule`` ends the evaluation (the lines are still acknowledged).

A rule process started for a job that already ran (a studio taking a running job over) first
reads the job's data from the store (``mlstudio tensors JOB --json``), so rules that look back see
it; only steps that come in on stdin are evaluated, so what the store held is not evaluated again
(and a fresh job, whose first steps may be in the store and on stdin both, loses none).

Plain ``smdebug`` imports resolve to ``mlstudio.smdebug`` in this process, so a rule written for
SageMaker runs unchanged.
"""

import importlib.util
import json
import os
import sys
import time
import traceback

_SKIPPING = ("TensorUnavailableForStep", "TensorUnavailable", "StepUnavailable",
             "StepNotYetAvailable")


class RuleFailed(Exception):
    """The rule cannot go on; the text is what the job's rule status shows."""


class Channel:
    """Lines in from one fd, lines out to another (one write per batch)."""

    def __init__(self, in_fd, out_fd):
        self._in, self._out = in_fd, out_fd
        self._rest = b""
        self.eof = False

    def read_lines(self):
        """The complete lines that arrived (blocking until at least one or end of input)."""
        while not self.eof:
            chunk = os.read(self._in, 1 << 16)
            if not chunk:
                self.eof = True
                lines, self._rest = [self._rest] if self._rest.strip() else [], b""
                return lines
            data = self._rest + chunk
            cut = data.rfind(b"\n") + 1
            if cut:
                self._rest = data[cut:]
                return data[:cut].splitlines()
            self._rest = data
        return []

    def send(self, messages):
        data = "".join(json.dumps(m) + "\n" for m in messages).encode("utf-8")
        while data:
            data = data[os.write(self._out, data):]


def _alias_smdebug():
    """``import smdebug...`` gives mlstudio.smdebug's modules (the real smdebug's Rule could not
    read a studio trial anyway)."""
    for sub in ("core.modes", "exceptions", "rules", "trials"):
        importlib.import_module("mlstudio.smdebug." + sub)
    for name, module in list(sys.modules.items()):
        if name == "mlstudio.smdebug" or name.startswith("mlstudio.smdebug."):
            sys.modules[name[len("mlstudio."):]] = module


def _traceback_text(error, headline):
    """The error's traceback without this file's frames: the rule's and the library's."""
    te = traceback.TracebackException.from_exception(error)
    te.stack = traceback.StackSummary.from_list(
        [f for f in te.stack if f.filename != __file__ and not f.filename.startswith("<frozen")]
    )
    return headline + "\n" + "".join(te.format())


def _load_class(source, class_name):
    directory = os.path.dirname(source)
    if directory not in sys.path:
        sys.path.insert(0, directory)  # the rule file's own helper modules import
    stem = os.path.splitext(os.path.basename(source))[0]
    module_name = stem if stem.isidentifier() and stem not in sys.modules else "studio_rule"
    spec = importlib.util.spec_from_file_location(module_name, source)
    if spec is None:
        raise RuleFailed("source: {} is not a Python file".format(source))
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    sys.argv = [source]
    try:
        spec.loader.exec_module(module)
    except BaseException as error:  # SyntaxError, SystemExit at import: the rule's fault
        raise RuleFailed(_traceback_text(error, "loading {} failed:".format(source))) from None
    found = getattr(module, class_name, None)
    if not isinstance(found, type):
        classes = sorted(n for n, v in vars(module).items()
                         if isinstance(v, type) and v.__module__ == module_name)
        raise RuleFailed("rule_to_invoke: {} defines no class {}; its classes: {}".format(
            source, class_name, ", ".join(classes) or "none"))
    if not callable(getattr(found, "invoke_at_step", None)):
        raise RuleFailed("rule_to_invoke: class {} of {} has no invoke_at_step(step) method; a "
                         "rule subclasses smdebug's Rule".format(class_name, source))
    return found


def _config(line):
    try:
        config = json.loads(line)["config"]
    except (ValueError, KeyError, TypeError):
        raise RuleFailed("line 1: must be {\"config\": {...}}, got " + repr(line[:200])) from None
    if not isinstance(config, dict):
        raise RuleFailed("config: must be an object")
    for key in ("source", "rule_to_invoke"):
        if not isinstance(config.get(key), str) or not config[key]:
            raise RuleFailed("config.{}: required, a string".format(key))
    if not os.path.isfile(config["source"]):
        raise RuleFailed("config.source: file {} does not exist".format(config["source"]))
    params = config.get("rule_parameters") or {}
    if not isinstance(params, dict):
        raise RuleFailed("config.rule_parameters: must be an object of strings")
    # SageMaker hands rule parameters over as strings; the rule parses them.
    config["rule_parameters"] = {k: v if isinstance(v, str) else str(v) for k, v in params.items()}
    return config


class RuleHost:
    """One custom rule over one job's event stream."""

    def __init__(self, config, trial, rule_class):
        from ..smdebug.rules.rule import Rule

        self._trial = trial
        self._class_name = rule_class.__name__
        shown = ", ".join("{}={!r}".format(k, v) for k, v in config["rule_parameters"].items())
        try:
            self._rule = rule_class(trial, **config["rule_parameters"])
        except Exception as error:
            raise RuleFailed(_traceback_text(error, "{}(base_trial{}) failed:".format(
                self._class_name, ", " + shown if shown else ""))) from None
        self._smdebug_rule = isinstance(self._rule, Rule)
        self._pending = {}  # train step that came in on stdin -> the (node, rank)s that sent it
        self._passed = {}  # (node, rank) -> the last step that rank is done with
        self._last_invoked = None
        self._times = {}  # step -> latest event time
        self._done = None  # why evaluation ended early
        self._skips = {}  # error class -> count
        self._found = 0
        self.findings = []
        self.evaluated = 0

    # -- events ------------------------------------------------------------------------------

    def handle(self, event):
        """One wire event line, parsed. Returns nothing; findings collect in self.findings."""
        from .._data_smdebug import ModeKeys
        from ._live_trial import metric_mode

        kind = event.get("kind")
        if kind not in ("tensor", "metric", "step"):
            return
        try:
            step, phase, rank = int(event["step"]), event.get("phase", "train"), event.get("rank", 0)
            origin = (int(event.get("node", 0)), int(rank))
            if kind == "step":  # the rank finished the step: its data of it all came before
                self._advance(origin, step)
                return
            if kind == "tensor":
                self._trial.add_tensor(event["collection"], event["name"], step,
                                       event.get("reductions"), phase, rank)
                train = phase == "train"
            else:
                self._trial.add_metric(event["name"], step, event["value"], phase, rank)
                train = metric_mode(event["name"], phase) is ModeKeys.TRAIN
        except (KeyError, TypeError, ValueError) as error:
            self._note("event ignored ({}): {}".format(error, json.dumps(event)[:300]))
            return
        t = event.get("t")
        if isinstance(t, (int, float)):
            self._times[step] = max(self._times.get(step, t), t)
        if train and (self._last_invoked is None or step > self._last_invoked):
            self._pending.setdefault(step, set()).add(origin)
        self._advance(origin, step - 1)

    def _advance(self, origin, step):
        if step > self._passed.get(origin, step - 1):
            self._passed[origin] = step
            self._evaluate(final=False)

    def finish(self):
        """The job ended: every step left is complete."""
        self._trial.end()
        self._evaluate(final=True)
        skipped = sum(self._skips.values())
        self._note("{} step(s) evaluated, {} found, {} skipped{}{}".format(
            self.evaluated, self._found, skipped,
            " ({})".format(", ".join("{}: {}".format(k, n) for k, n in self._skips.items()))
            if skipped else "", "; " + self._done if self._done else ""))

    # -- evaluation --------------------------------------------------------------------------

    def _evaluate(self, final):
        """Invokes the pending steps in order, up to the first one not complete yet."""
        while self._pending and self._done is None:
            step = min(self._pending)
            origins = self._pending[step]
            if not final and any(self._passed.get(o, step - 1) < step for o in origins):
                return
            del self._pending[step]
            self._invoke(step)
            self._last_invoked = step

    def _invoke(self, step):
        from ..smdebug import exceptions as smx

        self._trial.refresh()  # the raw tensors the hook wrote meanwhile
        self._trial.last_tensor = None
        self.evaluated += 1
        try:
            if self._smdebug_rule:
                self._rule.invoke(step)
            else:
                result = self._rule.invoke_at_step(step)
                if result:
                    met = smx.RuleEvaluationConditionMet(self._class_name, step)
                    met.returned = result
                    raise met
        except smx.RuleEvaluationConditionMet as met:
            self._record(step, met)
        except smx.NoMoreData as error:
            self._done = "evaluation ended at step {}: {}".format(step, error)
        except smx.SMDebugError as error:
            if type(error).__name__ not in _SKIPPING:
                raise RuleFailed(self._invoke_failure(step, error)) from None
            self._skip(step, error)
        except Exception as error:
            raise RuleFailed(self._invoke_failure(step, error)) from None

    def _invoke_failure(self, step, error):
        return _traceback_text(error, "{}.invoke_at_step({}) raised:".format(
            self._class_name, step))

    def _record(self, step, met):
        returned = getattr(met, "returned", None)
        what = ("returned True" if returned is True
                else "raised RuleEvaluationConditionMet" if returned is None
                else "returned {}".format(repr(returned)[:200]))
        message = "{}: invoke_at_step({}) {}".format(self._class_name, step, what)
        device = self._trial.last_tensor or ""
        if device:
            message += " (last tensor read: {})".format(device)
        self._found += 1
        self.findings.append({"finding": {"step": step, "time": self._times.get(step, time.time()),
                                          "message": message, "device": device}})
        if met.end_of_rule:
            self._done = "the rule ended its evaluation at step {}".format(step)

    def _skip(self, step, error):
        kind = type(error).__name__
        self._skips[kind] = self._skips.get(kind, 0) + 1
        if self._skips[kind] > 1:
            return
        saved = ""
        at = self._trial.saved_reductions(getattr(error, "tname", None), step)
        if at:
            saved = (" (saved at that step: {}; a reduction the rule reads must be in its "
                     "collection's reductions, or the collection must save raw tensors)"
                     .format(", ".join(at)))
        self._note("step {} skipped: {}{}; later {} skips are counted".format(
            step, error, saved, kind))

    def _note(self, text):
        sys.stderr.write("mlstudio rule {}: {}\n".format(self._class_name, text))
        sys.stderr.flush()


def _use_studio_cli(config):
    """Points $MLSTUDIO_CLI at the studio's mlstudio: config "cli", else $MLSTUDIO_CLI or PATH's,
    else the program that started this process when it is mlstudio (a build tree's binary)."""
    from .._cli import cli_path
    from ..exceptions import StudioCliNotFound

    if config.get("cli"):
        os.environ["MLSTUDIO_CLI"] = config["cli"]
        return
    try:
        cli_path()
    except StudioCliNotFound:
        parent = os.path.realpath("/proc/{}/exe".format(os.getppid()))
        if os.path.basename(parent) == "mlstudio" and os.access(parent, os.X_OK):
            os.environ["MLSTUDIO_CLI"] = parent


def _preload(host_trial, config):
    """The job's data already in the store (a job taken over while running)."""
    from .._cli import cli_json
    from ..exceptions import StudioCliError, StudioCliNotFound

    if not config.get("home") or not config.get("job"):
        return
    _use_studio_cli(config)
    try:
        host_trial.merge_store(cli_json("tensors", config["job"], "--json", timeout=120))
    except (StudioCliError, StudioCliNotFound, OSError, ValueError) as error:
        sys.stderr.write("mlstudio rule {}: the job's stored tensors were not read ({}); the rule "
                         "sees the events from now on\n".format(config["rule_to_invoke"], error))


def serve(channel):
    """Runs the protocol over a channel; returns the exit status."""
    from ._live_trial import LiveTrial

    host, handled = None, 0
    try:
        first = []
        while not first and not channel.eof:
            first = [line for line in channel.read_lines() if line.strip()]
        if not first:
            raise RuleFailed("stdin ended before the config line")
        config = _config(first[0].decode("utf-8", "replace"))
        if config.get("home"):
            os.environ["MLSTUDIO_HOME"] = config["home"]  # create_trial() reads this home too
        _alias_smdebug()
        rule_class = _load_class(os.path.abspath(config["source"]), config["rule_to_invoke"])
        trial = LiveTrial(config.get("job") or "", config.get("debug_output"))
        _preload(trial, config)
        host = RuleHost(config, trial, rule_class)
        lines = first[1:]
        while True:
            ended = False
            for line in lines:
                if not line.strip():
                    continue
                try:
                    message = json.loads(line)
                except ValueError:
                    message = None
                if isinstance(message, dict) and message.get("end") is True:
                    ended = True
                    break
                handled += 1
                if isinstance(message, dict):
                    host.handle(message)
            if ended or channel.eof:
                host.finish()
                channel.send(host.findings + ([{"ack": handled}] if handled else []))
                return 0
            if host.findings or handled:
                channel.send(host.findings + ([{"ack": handled}] if handled else []))
                host.findings, handled = [], 0
            lines = channel.read_lines()
    except RuleFailed as failure:
        channel.send((host.findings if host else []) + [{"error": str(failure)}])
        return 1
    except Exception:  # the rule process's own fault: said the same way, with every frame
        channel.send([{"error": "the rule process failed:\n" + traceback.format_exc()}])
        return 1


def main():
    # The protocol keeps private copies of stdin and stdout; fd 1 becomes stderr and fd 0
    # /dev/null, so nothing the rule (or a library, or a child) prints or reads can touch it.
    channel = Channel(os.dup(0), os.dup(1))
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout = sys.stderr
    sys.stdin = open(os.devnull)
    try:
        return serve(channel)
    except BrokenPipeError:
        sys.stderr.write("mlstudio rule: the studio closed the rule's output; stopping\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
