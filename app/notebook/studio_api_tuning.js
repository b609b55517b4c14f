// The studio API of hyperparameter tuning jobs, mirroring the SageMaker Python SDK's tuner
// module: ContinuousParameter, IntegerParameter, CategoricalParameter, HyperparameterTuner,
// HyperparameterTuningJobAnalytics, WarmStartConfig and TuningJobCompletionCriteriaConfig.
// Evaluated after studio_api.js, whose internals arrive as __mlstudio_internals.
(function (internals, g) {
    'use strict';

    const {call, StudioError, Table, TrainingJob} = internals;

    // The SDK's parameter classes, callable with or without `new`. range() is the tuning
    // document's form, as_tuning_range(name) the SDK's (Name, MinValue, ...).
    function ContinuousParameter(min_value, max_value, scaling_type) {
        if (!(this instanceof ContinuousParameter))
            return new ContinuousParameter(min_value, max_value, scaling_type);
        this.min_value = min_value;
        this.max_value = max_value;
        this.scaling_type = scaling_type === undefined ? 'Auto' : scaling_type;
    }
    function IntegerParameter(min_value, max_value, scaling_type) {
        if (!(this instanceof IntegerParameter))
            return new IntegerParameter(min_value, max_value, scaling_type);
        this.min_value = min_value;
        this.max_value = max_value;
        this.scaling_type = scaling_type === undefined ? 'Auto' : scaling_type;
    }
    function CategoricalParameter(values) {
        if (!(this instanceof CategoricalParameter))
            return new CategoricalParameter(values);
        this.values = Array.isArray(values) ? values.slice() : [values];
    }
    for (const [cls, type] of [[ContinuousParameter, 'Continuous'], [IntegerParameter, 'Integer']]) {
        cls.prototype.range = function () {
            return {type: type, min_value: this.min_value, max_value: this.max_value,
                    scaling_type: this.scaling_type};
        };
        cls.prototype.as_tuning_range = function (name) {
            return {Name: name, MinValue: String(this.min_value), MaxValue: String(this.max_value),
                    ScalingType: this.scaling_type};
        };
        cls.prototype.toString = function () {
            return type + 'Parameter(' + this.min_value + ', ' + this.max_value + ', ' +
                   this.scaling_type + ')';
        };
    }
    CategoricalParameter.prototype.range = function () {
        return {type: 'Categorical', values: this.values};
    };
    CategoricalParameter.prototype.as_tuning_range = function (name) {
        return {Name: name, Values: this.values.map(v => typeof v === 'string' ? v : JSON.stringify(v))};
    };
    CategoricalParameter.prototype.toString = function () {
        return 'CategoricalParameter(' + JSON.stringify(this.values) + ')';
    };

    const WarmStartTypes = {
        IDENTICAL_DATA_AND_ALGORITHM: 'IdenticalDataAndAlgorithm',
        TRANSFER_LEARNING: 'TransferLearning',
    };
    function WarmStartConfig(warm_start_type, parents) {
        if (!(this instanceof WarmStartConfig))
            return new WarmStartConfig(warm_start_type, parents);
        this.type = warm_start_type;
        this.parents = parents instanceof Set ? Array.from(parents) : parents;
    }
    function TuningJobCompletionCriteriaConfig(options) {
        if (!(this instanceof TuningJobCompletionCriteriaConfig))
            return new TuningJobCompletionCriteriaConfig(options);
        Object.assign(this, options || {});
    }

    // Tuner options as the SDK names them -> the tuning document's keys.
    const renamed = {
        base_tuning_job_name: 'name',
        completion_criteria_config: 'completion_criteria',
    };
    const passed = ['objective_metric_name', 'objective_type', 'strategy', 'max_jobs',
                    'max_parallel_jobs', 'early_stopping_type', 'random_seed',
                    'hyperparameters_to_keep_static', 'max_runtime_in_seconds',
                    'base_tuning_job_name', 'completion_criteria', 'completion_criteria_config'];

    function isRangeObject(r) {
        return r instanceof ContinuousParameter || r instanceof IntegerParameter ||
               r instanceof CategoricalParameter;
    }

    function rangesDocument(ranges) {
        if (ranges === null || typeof ranges !== 'object' || Array.isArray(ranges))
            throw new StudioError('HyperparameterTuner: hyperparameter_ranges must be an object ' +
                                  'such as {lr: ContinuousParameter(0.001, 0.1)}',
                                  'hyperparameter_ranges');
        const out = {};
        for (const [name, r] of Object.entries(ranges)) {
            if (isRangeObject(r))
                out[name] = r.range();
            else if (r !== null && typeof r === 'object' && !Array.isArray(r))
                out[name] = Object.assign({}, r);
            else
                throw new StudioError('HyperparameterTuner: hyperparameter_ranges.' + name +
                                      ' must be a ContinuousParameter, IntegerParameter or ' +
                                      'CategoricalParameter, got ' + JSON.stringify(r),
                                      'hyperparameter_ranges.' + name);
        }
        return out;
    }

    function completionDocument(c) {
        const o = Object.assign({}, c);
        if ('max_number_of_training_jobs_not_improving' in o) {
            o.max_number_training_jobs_not_improving = o.max_number_of_training_jobs_not_improving;
            delete o.max_number_of_training_jobs_not_improving;
        }
        return o;
    }

    function strategyDocument(s) {
        const o = Object.assign({}, s);
        if ('hyperband_strategy_config' in o) {
            o.hyperband = o.hyperband_strategy_config;
            delete o.hyperband_strategy_config;
        }
        return o;
    }

    function warmStartDocument(w) {
        const o = {parents: w.parents instanceof Set ? Array.from(w.parents) : w.parents};
        const type = w.type !== undefined ? w.type : w.warm_start_type;
        if (type !== undefined)
            o.type = type;
        return o;
    }

    // The tuning document's fields, as the user wrote them ("tuning.name" came from
    // base_tuning_job_name, "training.x" from the estimator's x).
    function userPath(path, written) {
        if (path === 'training')
            return 'estimator';
        if (path.startsWith('training.'))
            return path.slice('training.'.length);
        if (!path.startsWith('tuning.'))
            return path;
        let p = path.slice('tuning.'.length);
        for (const [sdk, key] of Object.entries(renamed))
            if ((p === key || p.startsWith(key + '.')) && written.has(sdk))
                p = sdk + p.slice(key.length);
        if (written.has('max_number_of_training_jobs_not_improving'))
            p = p.replace('.max_number_training_jobs_not_improving',
                          '.max_number_of_training_jobs_not_improving');
        if (written.has('hyperband_strategy_config'))
            p = p.replace('strategy_config.hyperband', 'strategy_config.hyperband_strategy_config');
        return p;
    }

    function submitError(e, written) {
        const field = e.field !== undefined ? userPath(e.field, written) : undefined;
        const message = String(e.message).replace(/^(\s+)((?:tuning|training)(?:\.[^:\s]*)?):/gm,
                                                  (m, space, p) => space + userPath(p, written) + ':');
        const out = new StudioError(message, field);
        out.name = e.name;
        return out;
    }

    // SageMaker's HyperparameterTuner: new HyperparameterTuner(estimator, {objective_metric_name,
    // hyperparameter_ranges, ...}) or the SDK's positional form (estimator, objective_metric_name,
    // hyperparameter_ranges, metric_definitions, {...the rest}).
    class HyperparameterTuner {
        constructor(estimator, objective, ranges, metric_definitions, rest) {
            let o;
            if (typeof objective === 'string') {
                o = Object.assign({}, rest || {}, {objective_metric_name: objective,
                                                   hyperparameter_ranges: ranges});
                if (metric_definitions !== undefined && metric_definitions !== null)
                    o.metric_definitions = metric_definitions;
            } else {
                o = Object.assign({}, objective || {});
            }
            if (estimator === null || typeof estimator !== 'object' ||
                typeof estimator.spec !== 'function')
                throw new StudioError('HyperparameterTuner: the first argument must be an ' +
                                      'Estimator', 'estimator');
            this.estimator = estimator;
            this.options = o;
            this.objective_metric_name = o.objective_metric_name;
            this.hyperparameter_ranges = o.hyperparameter_ranges;
            this.latest_tuning_job = null;
            this._name = null;
        }
        // The tuning document ({"tuning", "training"}) fit() submits.
        document(inputs, job_name) {
            const o = this.options;
            const written = new Set(Object.keys(o).filter(k => o[k] !== undefined));
            const s = this.estimator.spec(inputs === undefined ? {} : {inputs: inputs});
            if (s.custom.length)
                throw new StudioError('HyperparameterTuner: the estimator has custom rules (' +
                                      s.custom.map(r => r.name).join(', ') + '); the training ' +
                                      'jobs of a tuning job take built-in rules only', 'rules');
            const training = s.spec;
            if (o.metric_definitions !== undefined)
                training.metric_definitions = o.metric_definitions;
            const tuning = {};
            for (const key of passed)
                if (o[key] !== undefined)
                    tuning[renamed[key] || key] = o[key];
            if (job_name !== undefined)
                tuning.name = job_name;
            if ('hyperparameter_ranges' in o)
                tuning.hyperparameter_ranges = rangesDocument(o.hyperparameter_ranges);
            if (tuning.completion_criteria !== undefined) {
                const c = tuning.completion_criteria;
                if (c && typeof c === 'object' && 'max_number_of_training_jobs_not_improving' in c)
                    written.add('max_number_of_training_jobs_not_improving');
                tuning.completion_criteria = completionDocument(c);
            }
            if (o.strategy_config !== undefined) {
                if (o.strategy_config && 'hyperband_strategy_config' in o.strategy_config)
                    written.add('hyperband_strategy_config');
                tuning.strategy_config = strategyDocument(o.strategy_config);
            }
            if (o.warm_start_config !== undefined && o.warm_start_config !== null)
                tuning.warm_start_config = warmStartDocument(o.warm_start_config);
            return {document: {tuning: tuning, training: training}, written: written};
        }
        // fit(inputs, {wait, logs, job_name}) or fit({inputs, wait, logs, job_name}).
        fit(inputs, options) {
            let f = options || {};
            const keys = ['inputs', 'wait', 'logs', 'job_name'];
            if (options === undefined && inputs !== null && typeof inputs === 'object' &&
                Object.keys(inputs).length && Object.keys(inputs).every(k => keys.includes(k))) {
                f = inputs;
                inputs = f.inputs;
            }
            const d = this.document(inputs, f.job_name);
            let name;
            try {
                name = call('tuning.submit', {document: d.document});
            } catch (e) {
                throw submitError(e, d.written);
            }
            this._name = name;
            this.latest_tuning_job = {name: name, job_name: name};
            display(this);
            if (f.wait !== false)
                this.wait({logs: f.logs !== false});
            return this;
        }
        _current() {
            if (!this._name)
                throw new StudioError('HyperparameterTuner: no tuning job yet; call fit() or ' +
                                      'HyperparameterTuner.attach(name)', 'latest_tuning_job');
            return this._name;
        }
        get name() {
            return this._name;
        }
        get status() {
            return this.describe().HyperParameterTuningJobStatus;
        }
        // Waits for the tuning job's end, printing its progress unless logs false; the status.
        wait(options) {
            const o = options || {};
            return call('tuning.wait', {tuning: this._current(), logs: o.logs !== false});
        }
        stop() {
            return call('tuning.stop', {tuning: this._current()});
        }
        describe() {
            return call('tuning.describe', {tuning: this._current()});
        }
        // The best training job's name; throws when none has an objective yet.
        best_training_job() {
            return call('tuning.best', {tuning: this._current()});
        }
        // An Estimator with the best training job's hyperparameters (SDK: best_estimator).
        best_estimator() {
            const best = this.describe().BestTrainingJob;
            if (!best)
                throw new StudioError('HyperparameterTuner ' + this._current() + ': no training ' +
                                      'job has reported ' + this.objective_metric_name + ' yet');
            const options = Object.assign({}, this.estimator.options);
            options.hyperparameters = Object.assign({}, options.hyperparameters || {},
                                                    best.TunedHyperParameters);
            const est = new g.Estimator(options);
            est.latest_training_job = new TrainingJob(best.TrainingJobName);
            est.jobs.push(est.latest_training_job);
            return est;
        }
        analytics() {
            return new HyperparameterTuningJobAnalytics(this._current());
        }
        toString() {
            return 'HyperparameterTuner ' + (this._name || '(not started)');
        }
        _repr_mlstudio() {
            if (!this._name)
                return {data: {'text/plain': this.toString()}};
            return call('tuning.display', {tuning: this._name});
        }
        // A tuner on a stored tuning job (full name or unique prefix); the estimator is rebuilt
        // from its training spec.
        static attach(tuning_job_name, options) {
            const name = call('tuning.resolve', {tuning: tuning_job_name});
            const doc = call('tuning.document', {tuning: name});
            const t = Object.create(HyperparameterTuner.prototype);
            t.estimator = (options && options.estimator) || new g.Estimator(doc.training || {});
            t.options = Object.assign({}, doc.tuning || {});
            t.objective_metric_name = t.options.objective_metric_name;
            t.hyperparameter_ranges = t.options.hyperparameter_ranges;
            t._name = name;
            t.latest_tuning_job = {name: name, job_name: name};
            return t;
        }
    }

    // SageMaker's HyperparameterTuningJobAnalytics: one row per training job with the tuned
    // hyperparameters, TrainingJobName, TrainingJobStatus, FinalObjectiveValue, times and
    // StoppedEarly.
    class HyperparameterTuningJobAnalytics {
        constructor(hyperparameter_tuning_job_name) {
            this.name = typeof hyperparameter_tuning_job_name === 'string'
                ? hyperparameter_tuning_job_name : hyperparameter_tuning_job_name.name;
        }
        table() {
            const t = call('tuning.analytics', {tuning: this.name});
            return new Table(t.columns, t.rows, this.name);
        }
        dataframe() {
            return this.table();
        }
        description() {
            return call('tuning.describe', {tuning: this.name});
        }
    }

    Object.assign(g, {
        ContinuousParameter, IntegerParameter, CategoricalParameter, HyperparameterTuner,
        HyperparameterTuningJobAnalytics, WarmStartConfig, WarmStartTypes,
        TuningJobCompletionCriteriaConfig,
    });
})(__mlstudio_internals, this);
