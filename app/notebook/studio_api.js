// The studio API of notebook code, mirroring the SageMaker Python SDK's names: Estimator,
// TrainingJob, Experiment, Trial, Tracker, ExperimentAnalytics, Rule, ProfilerRule, actions
// (tuning jobs: studio_api_tuning.js).
// Evaluated once per kernel context with `host`, the native StudioHost object; everything the
// engine does goes through host.call(method, argsJson), which answers {"ok": value} or
// {"error": message, "field": path}.
(function (host, g) {
    'use strict';

    // ES2019 parts this engine (Qt 6.4's V4) lacks, so notebook code can use them.
    function polyfill(target, name, value) {
        if (!(name in target))
            Object.defineProperty(target, name, {value: value, writable: true, configurable: true});
    }
    polyfill(g, 'globalThis', g);
    polyfill(Array.prototype, 'flat', function (depth) {
        const d = depth === undefined ? 1 : depth;
        return this.reduce((acc, v) => acc.concat(Array.isArray(v) && d > 0 ? v.flat(d - 1) : [v]), []);
    });
    polyfill(Array.prototype, 'flatMap', function (fn, thisArg) {
        return this.map(fn, thisArg).flat();
    });
    polyfill(Object, 'fromEntries', function (entries) {
        const o = {};
        for (const [k, v] of entries)
            o[k] = v;
        return o;
    });
    polyfill(String.prototype, 'trimEnd', function () {
        return this.replace(/\s+$/, '');
    });
    polyfill(String.prototype, 'trimStart', function () {
        return this.replace(/^\s+/, '');
    });

    class StudioError extends Error {
        constructor(message, field) {
            super(message);
            this.name = 'StudioError';
            if (field !== undefined)
                this.field = field;
        }
    }

    function call(method, args) {
        const reply = JSON.parse(host.call(method, JSON.stringify(args === undefined ? null : args)));
        if (reply.error !== undefined) {
            const e = new StudioError(reply.error, reply.field);
            if (reply.name)
                e.name = reply.name;
            throw e;
        }
        return reply.ok;
    }

    function text(v) {
        if (typeof v === 'string')
            return v;
        if (v === undefined)
            return 'undefined';
        if (v !== null && typeof v === 'object' && typeof v.toString === 'function' &&
            v.toString !== Object.prototype.toString && !Array.isArray(v))
            return v.toString();
        try {
            return JSON.stringify(v, null, 2);
        } catch (e) {
            return String(v);
        }
    }

    function escapeHtml(s) {
        return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
            .replace(/"/g, '&quot;');
    }

    function cellText(v) {
        if (v === null || v === undefined)
            return '';
        if (typeof v === 'number') {
            if (Number.isInteger(v) || !Number.isFinite(v))
                return String(v);
            return Math.abs(v) >= 1e5 ? v.toFixed(3) : String(Number(v.toPrecision(6)));
        }
        return String(v);
    }

    // Output: print and console write stream text; display shows a value richly.
    g.print = function (...values) {
        host.write('stdout', values.map(text).join(' ') + '\n');
    };
    g.console = {
        log: g.print,
        info: g.print,
        debug: g.print,
        warn: (...values) => host.write('stderr', values.map(text).join(' ') + '\n'),
        error: (...values) => host.write('stderr', values.map(text).join(' ') + '\n'),
    };
    // The MIME bundle of a value: objects with _repr_mlstudio() choose theirs.
    function bundle(value) {
        if (value !== null && typeof value === 'object' && typeof value._repr_mlstudio === 'function')
            return value._repr_mlstudio();
        return {data: {'text/plain': text(value)}};
    }
    const shown = new Set();
    g.display = function (value) {
        if (value !== null && typeof value === 'object')
            shown.add(value);
        const b = bundle(value);
        host.display(JSON.stringify(b));
    };
    // Called by the kernel for a cell's last value; values display() showed already are skipped.
    g.__mlstudio_render = function (value) {
        const skip = value === undefined || shown.has(value);
        shown.clear();
        return skip ? '' : JSON.stringify(bundle(value));
    };
    // Pauses the cell while jobs and custom rules go on.
    g.sleep = function (seconds) {
        call('sleep', {seconds: Number(seconds)});
    };

    // A table: columns and rows, shown as an HTML table with a JSON twin.
    class Table {
        constructor(columns, rows, title) {
            this.columns = columns;
            this.rows = rows;
            if (title)
                this.title = title;
        }
        get length() {
            return this.rows.length;
        }
        column(name) {
            const i = this.columns.indexOf(name);
            if (i < 0)
                throw new StudioError('no column "' + name + '"; the columns are ' +
                                      this.columns.join(', '));
            return this.rows.map(r => r[i]);
        }
        records() {
            return this.rows.map(r => Object.fromEntries(this.columns.map((c, i) => [c, r[i]])));
        }
        toCSV() {
            const q = v => {
                const s = cellText(v);
                return /[",\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
            };
            return [this.columns.map(q).join(',')].concat(this.rows.map(r => r.map(q).join(',')))
                .join('\n') + '\n';
        }
        toString() {
            const widths = this.columns.map((c, i) =>
                Math.min(40, Math.max(c.length, ...this.rows.map(r => cellText(r[i]).length))));
            const line = cells => cells.map((c, i) => cellText(c).slice(0, 40).padEnd(widths[i]))
                .join('  ').trimEnd();
            return [line(this.columns)].concat(this.rows.map(line)).join('\n');
        }
        _repr_mlstudio() {
            let html = '<table class="mlstudio-table" border="1" cellspacing="0" cellpadding="3">';
            if (this.title)
                html += '<caption>' + escapeHtml(this.title) + '</caption>';
            html += '<thead><tr>' + this.columns.map(c => '<th>' + escapeHtml(c) + '</th>').join('') +
                    '</tr></thead><tbody>';
            for (const r of this.rows)
                html += '<tr>' + r.map(v => '<td>' + escapeHtml(cellText(v)) + '</td>').join('') +
                        '</tr>';
            html += '</tbody></table>';
            return {
                data: {
                    'text/html': html,
                    'text/plain': this.toString(),
                    'application/vnd.mlstudio.table+json': {columns: this.columns, rows: this.rows},
                },
            };
        }
    }

    // A training job: a handle on a job the studio runs or ran (SageMaker's TrainingJob).
    class TrainingJob {
        constructor(name) {
            this.name = name;
            this.job_name = name;
        }
        get status() {
            return call('job.status', {job: this.name}).status;
        }
        get secondary_status() {
            return call('job.status', {job: this.name}).secondary_status;
        }
        describe() {
            return call('job.describe', {job: this.name});
        }
        // Prints the job's log lines ([node,rank]<stream>:text); {rank, tail, print: false}.
        logs(options) {
            const o = options || {};
            const lines = call('job.logs', {job: this.name, rank: o.rank, tail: o.tail});
            if (o.print === false)
                return lines;
            for (const l of lines)
                print(l);
            return undefined;
        }
        // One metric's points as a table (step, value, time, node, rank), or every metric's
        // summary without a name.
        metrics(name) {
            const t = call('job.metrics', {job: this.name, name: name});
            return new Table(t.columns, t.rows, name ? this.name + ' ' + name : this.name + ' metrics');
        }
        findings() {
            const t = call('job.findings', {job: this.name});
            const table = new Table(t.columns, t.rows, 'Debugger findings of ' + this.name);
            table.rules = new Table(t.rules.columns, t.rules.rows, 'Rules');
            return table;
        }
        rules() {
            return this.findings().rules;
        }
        billing() {
            const b = call('job.billing', {job: this.name});
            Object.defineProperty(b, '_repr_mlstudio', {
                enumerable: false,
                value: () => new Table(['item', 'value'], Object.entries(b).map(
                    ([k, v]) => [k, v === null ? '-' : v]), 'Billing of ' + this.name)._repr_mlstudio(),
            });
            return b;
        }
        stop() {
            return call('job.stop', {job: this.name});
        }
        // A spot interruption notice: the job checkpoints, waits for capacity and resumes.
        interrupt() {
            return call('job.interrupt', {job: this.name});
        }
        // Opens the job's Debugger insights dashboard in the studio and returns its rules.
        insights() {
            const r = call('job.insights', {job: this.name});
            return new Table(r.columns, r.rows, 'Debugger insights of ' + this.name +
                             (r.report ? ' (report: ' + r.report + ')' : ''));
        }
        // Waits for the job's end (or {until_step: N}); prints status changes unless logs false.
        wait(options) {
            const o = options || {};
            return call('job.wait', {job: this.name, logs: o.logs !== false, until_step: o.until_step});
        }
        toString() {
            return 'TrainingJob ' + this.name;
        }
        _repr_mlstudio() {
            return call('job.display', {job: this.name});
        }
        static attach(name) {
            return new TrainingJob(call('job.resolve', {job: name}));
        }
    }

    // Debugger rules: Rule.builtin(name, parameters, actions), Rule.custom(name, fn, actions).
    const actions = {
        StopTraining: () => 'StopTraining',
        Notify: () => 'Notify',
        Email: () => 'Notify',
        SMS: () => 'Notify',
        ActionList: (...list) => list.flat(),
    };
    function actionList(a) {
        if (a === undefined || a === null)
            return [];
        return (Array.isArray(a) ? a : [a]).flat();
    }
    function parameterStrings(parameters) {
        const out = {};
        for (const [k, v] of Object.entries(parameters || {}))
            out[k] = typeof v === 'string' ? v : JSON.stringify(v);
        return out;
    }
    const Rule = {
        builtin(name, parameters, ruleActions) {
            return {name: name, parameters: parameterStrings(parameters), actions: actionList(ruleActions)};
        },
        // fn(event, rule) is called with every event of the kinds asked (options.kinds, default
        // metric, tensor and step events); it returns a finding (a message or {message,
        // recommendation, step, device}) or calls rule.fire(...); rule.state persists.
        custom(name, fn, ruleActions, options) {
            if (typeof name !== 'string' || !/^[A-Za-z][A-Za-z0-9_-]*$/.test(name))
                throw new StudioError('Rule.custom: name must be letters, digits, - or _', 'rules');
            if (typeof fn !== 'function')
                throw new StudioError('Rule.custom(' + name + '): the second argument must be a function',
                                      'rules');
            const o = options || {};
            return {
                name: name,
                custom: true,
                fn: fn,
                actions: actionList(ruleActions),
                kinds: o.kinds || ['metric', 'tensor', 'step'],
                criteria: o.criteria || 'custom rule ' + name + ' (notebook function)',
            };
        },
    };
    // Rule.sagemaker(rule_configs.loss_not_decreasing(), actions) as in the SDK.
    Rule.sagemaker = (config, ruleActions) => {
        const r = typeof config === 'string' ? Rule.builtin(config, {}) : Object.assign({}, config);
        if (ruleActions !== undefined)
            r.actions = actionList(ruleActions);
        return r;
    };
    const ProfilerRule = {sagemaker: Rule.sagemaker, builtin: Rule.builtin};
    // rule_configs.loss_not_decreasing(parameters) is Rule.builtin("LossNotDecreasing", ...).
    const rule_configs = new Proxy({}, {
        get: (target, key) => {
            if (typeof key !== 'string')
                return undefined;
            if (key in actions)
                return actions[key];
            const ruleName = key.includes('_') || /^[a-z]/.test(key)
                ? key.split('_').map(w => w.charAt(0).toUpperCase() + w.slice(1)).join('') : key;
            return (parameters, ruleActions) => Rule.builtin(ruleName, parameters, ruleActions);
        },
    });

    // Estimator options are job spec fields (resources/specs/SPEC.md); fit adds inputs and
    // experiment_config and starts the job.
    class Estimator {
        constructor(options) {
            if (options === null || typeof options !== 'object' || Array.isArray(options))
                throw new StudioError('Estimator: options must be an object such as ' +
                                      '{entry_point: "builtin:mlp", ...}');
            this.options = Object.assign({}, options);
            this.jobs = [];
            this.latest_training_job = null;
        }
        spec(fitOptions) {
            const f = fitOptions || {};
            const spec = {};
            const custom = [];
            for (const [k, v] of Object.entries(this.options)) {
                if (k === 'rules')
                    continue;
                spec[k] = v;
            }
            const rules = [];
            for (const r of this.options.rules || []) {
                if (r && r.custom)
                    custom.push(r);
                else
                    rules.push(r);
            }
            if (rules.length)
                spec.rules = rules;
            if (f.inputs !== undefined)
                spec.inputs = typeof f.inputs === 'string' ? {training: f.inputs} : f.inputs;
            if (f.experiment_config !== undefined)
                spec.experiment_config = f.experiment_config;
            if (f.job_name !== undefined)
                spec.name = f.job_name;
            return {spec: spec, custom: custom};
        }
        // Checks the spec without starting anything; throws a StudioError naming the field.
        validate(fitOptions) {
            return call('validate', {spec: this.spec(fitOptions).spec});
        }
        fit(fitOptions) {
            const f = fitOptions || {};
            const s = this.spec(f);
            const name = host.submit(JSON.stringify({spec: s.spec, custom: s.custom.map(r => ({
                name: r.name, actions: r.actions, kinds: r.kinds, criteria: r.criteria}))}),
                s.custom.map(r => r.fn));
            const reply = JSON.parse(name);
            if (reply.error !== undefined) {
                const e = new StudioError(reply.error, reply.field);
                if (reply.name)
                    e.name = reply.name;
                throw e;
            }
            const job = new TrainingJob(reply.ok);
            this.jobs.push(job);
            this.latest_training_job = job;
            display(job);
            if (f.wait !== false)
                job.wait({logs: f.logs !== false});
            return job;
        }
        static attach(name) {
            return TrainingJob.attach(name);
        }
    }

    function nameOf(args, key) {
        if (typeof args === 'string')
            return args;
        if (args && typeof args[key] === 'string')
            return args[key];
        throw new StudioError(key + ' is required', key);
    }

    class Trial {
        constructor(row) {
            Object.assign(this, row);
        }
        static create(args) {
            return new Trial(call('trial.create', {trial_name: nameOf(args, 'trial_name'),
                                                   experiment_name: args.experiment_name}));
        }
        static load(args) {
            return new Trial(call('trial.load', {trial_name: nameOf(args, 'trial_name'),
                                                 experiment_name: args.experiment_name}));
        }
        // Moves a tracker's (or a job's) trial component into this trial.
        add_trial_component(component) {
            const name = typeof component === 'string' ? component
                : component.trial_component_name || component.name;
            call('trial.add_component', {experiment_name: this.experiment_name,
                                         trial_name: this.trial_name, component: name});
        }
        list_trial_components() {
            return call('trial.components', {experiment_name: this.experiment_name,
                                             trial_name: this.trial_name});
        }
    }

    class Experiment {
        constructor(row) {
            Object.assign(this, row);
        }
        static create(args) {
            return new Experiment(call('experiment.create', {
                experiment_name: nameOf(args, 'experiment_name'),
                description: (args && args.description) || ''}));
        }
        static load(args) {
            return new Experiment(call('experiment.load',
                                       {experiment_name: nameOf(args, 'experiment_name')}));
        }
        create_trial(args) {
            return Trial.create({trial_name: nameOf(args, 'trial_name'),
                                 experiment_name: this.experiment_name});
        }
        list_trials() {
            return call('experiment.trials', {experiment_name: this.experiment_name})
                .map(t => new Trial(t));
        }
        analytics(options) {
            return new ExperimentAnalytics(Object.assign({experiment_name: this.experiment_name},
                                                         options || {}));
        }
    }

    // Records parameters, metrics, inputs, outputs and artifacts of work done in the notebook
    // as a trial component of its own.
    class Tracker {
        constructor(row) {
            Object.assign(this, row);
            this.closed = false;
        }
        static create(args) {
            const a = args || {};
            return new Tracker(call('tracker.create', {
                display_name: a.display_name, experiment_name: a.experiment_name,
                trial_name: a.trial_name || (a.trial && a.trial.trial_name)}));
        }
        log_parameter(name, value) {
            this.log_parameters({[name]: value});
        }
        log_parameters(parameters) {
            call('tracker.parameters', {component: this.trial_component_name, parameters: parameters});
        }
        log_metric(metric_name, value, options) {
            const o = typeof options === 'number' ? {iteration_number: options} : (options || {});
            call('tracker.metric', {component: this.trial_component_name, name: metric_name,
                                    value: Number(value), step: o.iteration_number ?? o.step,
                                    timestamp: o.timestamp});
        }
        log_input(name, value, media_type) {
            call('tracker.artifact', {component: this.trial_component_name, kind: 'input',
                                      name: name, value: value, media_type: media_type});
        }
        log_output(name, value, media_type) {
            call('tracker.artifact', {component: this.trial_component_name, kind: 'output',
                                      name: name, value: value, media_type: media_type});
        }
        log_artifact(file_path, name, media_type) {
            call('tracker.artifact', {component: this.trial_component_name, kind: 'artifact',
                                      name: name, value: file_path, media_type: media_type,
                                      file: true});
        }
        close() {
            if (!this.closed)
                call('tracker.close', {component: this.trial_component_name});
            this.closed = true;
        }
    }

    // SageMaker's ExperimentAnalytics: one row per trial component; sort_by takes a column
    // name ("train:loss - Min") or the SDK's "metrics.train:loss.min" / "parameters.lr".
    class ExperimentAnalytics {
        constructor(options) {
            this.options = Object.assign({}, options || {});
        }
        table() {
            const t = call('analytics', this.options);
            return new Table(t.columns, t.rows, this.options.experiment_name);
        }
        dataframe() {
            return this.table();
        }
    }

    Object.assign(g, {
        StudioError, Table, TrainingJob, Estimator, Rule, ProfilerRule, rule_configs, actions,
        Experiment, Trial, Tracker, ExperimentAnalytics,
    });
    // For studio_api_tuning.js, evaluated next; the kernel removes it afterwards.
    Object.defineProperty(g, '__mlstudio_internals', {
        value: {call, StudioError, Table, TrainingJob}, configurable: true});
})(__studio_host, this);
