/*
  The experiments of an identification. Each experiment has its own options: a copy of the global options
  with its overrides, pushed as the default database (PetscOptionsPush) whenever its model, cost or
  integrator reads options. Three ways to declare them:

    -experiments a,b,c       named experiments; an option -a_X v sets -X v for experiment a only
                             (e.g. -a_measurement a.h5 -a_p_F0 1.0; in YAML, a: {measurement: a.h5})
    -sweep_rpm lo:hi:step    a stationary speed sweep: one experiment per speed n, simulated at constant
                             speed for -warmup_cycles (at least -warmup_time seconds, in whole revolutions)
                             + -window_cycles revolutions, the orders analysed on
                             the last -window_cycles revolutions (-stationary_rpm n, -time_span 0,T)
    -segments K              a run-up cut into K segments of its measured speeds (-speed_rpm), each simulated
                             from rest, a warm-up before its first window, to its last window. A segment from rest
                             misses the history of the run-up before it (the free vibration left by the start and
                             by resonances passed), which decays with the slowest mode: the warm-up is at least
                             -warmup_cycles revolutions and at least ln(1/-warmup_decay)/sigma, sigma the smallest
                             decay rate -Re(lambda) of the linearisation at the start parameters; a segment whose
                             warm-up would begin before the run-up starts from rest where the run-up does, and
                             then misses nothing

  Without any of them there is one experiment with the global options. The experiments are dealt to the
  ranks by their estimated cost (time steps), largest first onto the least loaded rank.
*/
#include "identification/identificationimpl.h"

/* The global options as "-name value" pairs (value NULL for a flag) */
typedef struct {
  int    argc;
  char **argv;
} MbsOptionList;

static PetscErrorCode MbsOptionListGet_Private(MbsOptionList *list, char **all)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetAll(NULL, all));
  PetscCall(PetscStrToArray(*all, ' ', &list->argc, &list->argv));
  PetscFunctionReturn(0);
}

static PetscBool MbsIsOptionName(const char token[])
{
  return (PetscBool)(token[0] == '-' && ((token[1] >= 'a' && token[1] <= 'z') || (token[1] >= 'A' && token[1] <= 'Z') || token[1] == '_'));
}

/* The global options, then for every global option -<prefix>X its value as -X. -<prefix>X itself counts as used here:
   an error inside the experiment lists the unused options of this database, where only -X can be a leftover */
static PetscErrorCode MbsExperimentOptionsCreate_Private(const char all[], const MbsOptionList *list, const char prefix[], PetscOptions *options)
{
  size_t len;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsCreate(options));
  PetscCall(PetscOptionsInsertString(*options, all));
  if (!prefix) PetscFunctionReturn(0);
  PetscCall(PetscStrlen(prefix, &len));
  for (int i = 0; i < list->argc; i++) {
    PetscBool match;
    char      name[256];

    if (!MbsIsOptionName(list->argv[i])) continue;
    PetscCall(PetscStrncmp(list->argv[i] + 1, prefix, len, &match));
    if (!match) continue;
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%s", list->argv[i] + 1 + len));
    PetscCall(PetscOptionsSetValue(*options, name, i + 1 < list->argc && !MbsIsOptionName(list->argv[i + 1]) ? list->argv[i + 1] : NULL));
    PetscCall(PetscOptionsHasName(*options, NULL, list->argv[i], &match));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsExperimentAdd_Private(PetscInt *n, PetscInt *nalloc, MbsExperiment **experiments, const char name[], PetscOptions options)
{
  PetscFunctionBeginUser;
  if (*n == *nalloc) {
    MbsExperiment *grown;

    *nalloc = PetscMax(8, 2 * *nalloc);
    PetscCall(PetscCalloc1(*nalloc, &grown));
    PetscCall(PetscArraycpy(grown, *experiments, *n));
    PetscCall(PetscFree(*experiments));
    *experiments = grown;
  }
  PetscCall(PetscStrncpy((*experiments)[*n].name, name, sizeof((*experiments)[*n].name)));
  (*experiments)[*n].options = options;
  (*n)++;
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsParseSweepCopy_Private(MPI_Comm comm, const char text[], char copy[], PetscReal range[3])
{
  char *token, *rest = copy;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < 3; i++) {
    PetscBool ok;

    token = rest;
    while (*rest && *rest != ':' && *rest != ',') rest++;
    ok = (PetscBool)(*rest || i == 2);
    if (*rest) *rest++ = 0;
    PetscCheck(ok && token[0], comm, PETSC_ERR_ARG_WRONG, "-sweep_rpm needs lo:hi:step [rpm], got '%s'", text);
    range[i] = atof(token);
  }
  PetscFunctionReturn(0);
}

/* "lo:hi:step" or "lo,hi,step" */
static PetscErrorCode MbsParseSweep_Private(MPI_Comm comm, const char text[], PetscReal range[3])
{
  char *copy;

  PetscFunctionBeginUser;
  PetscCall(PetscStrallocpy(text, &copy));
  MbsCallCleanup(MbsParseSweepCopy_Private(comm, text, copy, range), PetscFree(copy));
  PetscCheck(range[0] > 0 && range[1] >= range[0] && range[2] > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-sweep_rpm %s: needs 0 < lo <= hi and step > 0 [rpm]", text);
  PetscFunctionReturn(0);
}

/* How long each segment is simulated before its first window */
typedef struct {
  PetscReal cycles;    /* -warmup_cycles: at least this many revolutions at the segment's first speed */
  PetscReal time;      /* -warmup_time: a sweep point's warm-up lasts at least this long [s], in whole revolutions */
  PetscReal decay;     /* -warmup_decay: the slowest mode decays to this fraction */
  PetscReal sigma;     /* its decay rate [1/s] */
  PetscReal frequency; /* its frequency [Hz] (0: a real eigenvalue) */
} MbsWarmup;

/* The segments of a measured run-up, by its speeds meas->speed in the range of opts */
static PetscErrorCode MbsSegmentsCut_Private(MPI_Comm comm, PetscInt K, const MbsWarmup *warmup, const char all[], const char path[], const MbsFourierOptions *opts, const MbsMeasurement *meas, PetscInt *n, PetscInt *nalloc, MbsExperiment **experiments)
{
  PetscInt  first = -1, last = -1, nsel;
  PetscReal t_begin = meas->nsignal ? meas->t[0] : opts->speed.ntable ? opts->speed.table_t[0] : opts->speed.ramp_time[0], t_decay = PetscLogReal(1 / warmup->decay) / warmup->sigma;

  PetscFunctionBeginUser;
  PetscCheck(meas->nspeed > 0, comm, PETSC_ERR_ARG_WRONG, "Measurement file '%s' has no /orders to cut into -segments", path);
  for (PetscInt s = 0; s < meas->nspeed; s++) {
    if (opts->nspeed_range >= 2 && (meas->speed[s] < opts->speed_range[0] || meas->speed[s] > opts->speed_range[1])) continue;
    if (first < 0) first = s;
    last = s;
  }
  nsel = first < 0 ? 0 : last - first + 1;
  PetscCheck(K >= 1 && K <= nsel, comm, PETSC_ERR_ARG_OUTOFRANGE, "-segments %" PetscInt_FMT ": must lie in [1, %" PetscInt_FMT "], the measured speeds of file '%s' in the range", K, nsel, path);
  for (PetscInt k = 0; k < K; k++) {
    PetscInt     s0 = first + k * nsel / K, s1 = first + (k + 1) * nsel / K - 1;
    PetscReal    n0 = meas->speed[s0], n1 = meas->speed[s1], t_first, t_last, t_start, t_end, t_ignored;
    PetscOptions options;
    char         name[64], value[128];

    PetscCall(MbsFourierOrderWindow(&opts->speed, opts->domain, n0, &t_first, &t_ignored));
    PetscCall(MbsFourierOrderWindow(&opts->speed, opts->domain, n1, &t_ignored, &t_last));
    t_start = t_first - PetscMax(warmup->cycles * 60 / n0, t_decay);
    t_end   = t_last;
    if (t_start <= t_begin) {
      t_start = t_begin;
      PetscCall(PetscPrintf(comm, "Segment %" PetscInt_FMT " (%g to %g rpm) starts from rest with the run-up at t = %g s: the %g s before its first window are less than the %g s its warm-up needs\n", k, (double)n0, (double)n1, (double)t_begin, (double)(t_first - t_begin),
                            (double)PetscMax(warmup->cycles * 60 / n0, t_decay)));
    } else PetscCall(PetscPrintf(comm, "Segment %" PetscInt_FMT " (%g to %g rpm) starts from rest at t = %g s, %g s before its first window\n", k, (double)n0, (double)n1, (double)t_start, (double)(t_first - t_start)));
    PetscCall(MbsExperimentOptionsCreate_Private(all, NULL, NULL, &options));
    PetscCall(PetscSNPrintf(value, sizeof(value), "%.17g,%.17g", (double)t_start, (double)t_end));
    PetscCall(PetscOptionsSetValue(options, "-time_span", value));
    /* the cost selects the speeds by range: the midpoints to the neighbouring segments */
    PetscCall(PetscSNPrintf(value, sizeof(value), "%.17g,%.17g", (double)(s0 > first ? 0.5 * (meas->speed[s0 - 1] + n0) : n0), (double)(s1 < last ? 0.5 * (n1 + meas->speed[s1 + 1]) : n1)));
    PetscCall(PetscOptionsSetValue(options, "-speed_rpm", value));
    PetscCall(PetscSNPrintf(name, sizeof(name), "segment%" PetscInt_FMT, k));
    PetscCall(MbsExperimentAdd_Private(n, nalloc, experiments, name, options));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsSegmentsRead_Private(MPI_Comm comm, PetscInt K, const MbsWarmup *warmup, const char all[], const char path[], const MbsFourierOptions *opts, PetscInt *n, PetscInt *nalloc, MbsExperiment **experiments)
{
  MbsMeasurement meas;

  PetscFunctionBeginUser;
  PetscCheck(opts->speed.ntable || opts->speed.ramp_rpm[0] != opts->speed.ramp_rpm[1], comm, PETSC_ERR_ARG_WRONG, "-segments needs the run-up: -ramp_rpm n0,n1 -ramp_time t0,t1, or -speed_profile");
  PetscCall(MbsMeasurementRead(comm, path, &meas));
  MbsCallCleanup(MbsSegmentsCut_Private(comm, K, warmup, all, path, opts, &meas, n, nalloc, experiments), MbsMeasurementReset(&meas));
  PetscFunctionReturn(0);
}

/* The slowest decay of a free vibration of the model at the start parameters: the smallest -Re(lambda) of its
   linearisation over its oscillatory modes and its nonzero real eigenvalues (a rigid-body mode's motion is prescribed
   by the run-up's speed); and the order options, whose windows follow the model's run-up */
static PetscErrorCode MbsWarmupSlowestMode_Private(MPI_Comm comm, MbsModel model, MbsEigenResult *eigen, MbsWarmup *warmup, MbsFourierOptions *opts)
{
  const MbsSpeedProfile *speed;

  PetscFunctionBeginUser;
  PetscCall(MbsModelSetFromOptions(model));
  PetscCall(MbsEigenCompute(model, NULL, eigen));
  PetscCheck(!eigen->unstable, comm, PETSC_ERR_ARG_OUTOFRANGE, "-segments: the linearisation of model %s at the start parameters (-p_*) is unstable, so no warm-up lets a segment's start transient decay; start from stable parameters", model->type);
  warmup->sigma = PETSC_INFINITY;
  for (PetscInt i = 0; i < eigen->nmode; i++) {
    PetscReal sigma = eigen->damping_ratio[i] * 2 * PETSC_PI * eigen->frequency_hz[i];

    if (sigma < warmup->sigma) {
      warmup->sigma     = sigma;
      warmup->frequency = eigen->frequency_hz[i];
    }
  }
  for (PetscInt i = 0; i < eigen->nreal; i++)
    if (eigen->real_eigenvalues[i] < 0 && -eigen->real_eigenvalues[i] < warmup->sigma) {
      warmup->sigma     = -eigen->real_eigenvalues[i];
      warmup->frequency = 0;
    }
  PetscCall(PetscPrintf(comm, "Segments: the slowest mode of the linearisation at the start parameters (%g Hz) decays at %g 1/s; to -warmup_decay %g in %g s\n", (double)warmup->frequency, (double)warmup->sigma, (double)warmup->decay,
                        (double)(PetscLogReal(1 / warmup->decay) / warmup->sigma)));
  PetscCall(MbsModelGetSpeedProfile(model, &speed));
  PetscCall(MbsFourierOptionsRead(0, 1, speed, opts));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsWarmupSlowestModeEnd_Private(MbsModel *model, MbsEigenResult *eigen)
{
  PetscFunctionBeginUser;
  PetscCall(MbsEigenResultReset(eigen));
  PetscCall(MbsModelDestroy(model));
  PetscFunctionReturn(0);
}

/*
  A run-up's measured speeds in -speed_rpm cut into K groups; segment k is simulated from a warm-up (MbsWarmup) before
  the window of its first speed to the end of the window of its last speed.
*/
static PetscErrorCode MbsSegmentsCreate_Private(MPI_Comm comm, PetscInt K, MbsWarmup *warmup, const char all[], PetscInt *n, PetscInt *nalloc, MbsExperiment **experiments)
{
  MbsFourierOptions opts;
  MbsModel          model;
  MbsEigenResult    eigen;
  char              path[PETSC_MAX_PATH_LEN] = "";

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-measurement", path, sizeof(path), NULL));
  PetscCheck(path[0], comm, PETSC_ERR_ARG_WRONG, "-segments cuts the run-up of the measurement: give -measurement");
  PetscCall(PetscMemzero(&eigen, sizeof(eigen)));
  PetscCall(MbsModelCreate(comm, &model));
  MbsCallCleanup(MbsWarmupSlowestMode_Private(comm, model, &eigen, warmup, &opts), MbsWarmupSlowestModeEnd_Private(&model, &eigen));
  MbsCallCleanup(MbsSegmentsRead_Private(comm, K, warmup, all, path, &opts, n, nalloc, experiments), MbsFourierOptionsReset(&opts));
  PetscFunctionReturn(0);
}

/* What the options declare: names, a sweep or segments, and the global options they start from */
typedef struct {
  char         *names[256];
  PetscInt      nnames, nsegments;
  char          sweep[128];
  PetscReal     window;
  PetscInt      steps_per_revolution; /* -sweep_steps_per_revolution: a sweep point's fixed step 1/(n m); 0: -ts_dt */
  MbsWarmup     warmup;
  PetscBool     set_names, set_sweep, set_segments;
  MbsOptionList list;
  char         *all;
} MbsExperimentsSpec;

static PetscErrorCode MbsExperimentsSpecReset_Private(MbsExperimentsSpec *spec)
{
  PetscFunctionBeginUser;
  PetscCall(MbsStringsFree(PETSC_STATIC_ARRAY_LENGTH(spec->names), spec->names));
  PetscCall(PetscStrToArrayDestroy(spec->list.argc, spec->list.argv));
  PetscCall(PetscFree(spec->all));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsExperimentsCreateFrom_Private(MPI_Comm comm, MbsExperimentsSpec *spec, PetscInt *n, MbsExperiment **experiments)
{
  char   **names = spec->names;
  PetscInt nnames, nalloc = 0, modes = 0;

  PetscFunctionBeginUser;
  spec->nnames        = PETSC_STATIC_ARRAY_LENGTH(spec->names);
  spec->warmup.cycles = 10;
  spec->warmup.decay  = 1e-3;
  spec->window        = 4;
  MbsOptionsBegin(comm, NULL, "Experiments", "MbsExperiment");
  PetscCall(PetscOptionsStringArray("-experiments", "Named experiments a,b,...; -a_X v sets option -X for experiment a (default: one experiment)", "MbsExperimentsCreate", names, &spec->nnames, &spec->set_names));
  PetscCall(PetscOptionsString("-sweep_rpm", "Stationary speed sweep lo:hi:step [rpm], one experiment per speed", "MbsExperimentsCreate", spec->sweep, spec->sweep, sizeof(spec->sweep), &spec->set_sweep));
  PetscCall(MbsOptionsIntRange(PetscOptionsObject, "-segments", "Cut the measured run-up into this many segments, one experiment each", &spec->nsegments, PETSC_MIN_INT, PETSC_MAX_INT, &spec->set_segments));
  PetscCall(PetscOptionsReal("-warmup_cycles", "Revolutions simulated before the analysed window of a sweep point or segment (a segment: at least)", "MbsExperimentsCreate", spec->warmup.cycles, &spec->warmup.cycles, NULL));
  PetscCall(MbsOptionsIntRange(PetscOptionsObject, "-sweep_steps_per_revolution", "Sweep: fixed time steps of 1/(n m) at speed n, m per revolution (the error of a fixed step method is then alike at every speed, and the window holds whole steps; 0: -ts_dt)",
                               &spec->steps_per_revolution, 0, PETSC_MAX_INT, NULL));
  PetscCall(PetscOptionsReal("-warmup_time", "Sweep: at least this long a warm-up [s], rounded up to whole revolutions (the transient from rest decays in time, not in revolutions)", "MbsExperimentsCreate", spec->warmup.time, &spec->warmup.time, NULL));
  PetscCall(PetscOptionsReal("-warmup_decay", "Segments: a warm-up long enough for the slowest mode of the linearisation to decay to this fraction", "MbsExperimentsCreate", spec->warmup.decay, &spec->warmup.decay, NULL));
  MbsOptionsEnd();
  nnames = spec->nnames;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-window_cycles", &spec->window, NULL)); /* listed in -help with the order analysis, which reads it too */
  modes = (PetscInt)spec->set_names + (PetscInt)spec->set_sweep + (PetscInt)spec->set_segments;
  PetscCheck(modes <= 1, comm, PETSC_ERR_ARG_INCOMP, "Give at most one of -experiments, -sweep_rpm and -segments");
  PetscCheck(spec->warmup.cycles >= 0 && spec->window > 0 && spec->warmup.time >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-warmup_cycles and -warmup_time must be >= 0 and -window_cycles > 0");
  PetscCheck(spec->warmup.decay > 0 && spec->warmup.decay < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-warmup_decay %g: must lie in (0, 1), the fraction the slowest mode decays to", (double)spec->warmup.decay);
  PetscCheck(!spec->set_segments || spec->nsegments >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-segments must be at least 1, got %" PetscInt_FMT, spec->nsegments);
  for (PetscInt e = 0; e < nnames; e++) {
    PetscBool identifier = (PetscBool)((names[e][0] >= 'a' && names[e][0] <= 'z') || (names[e][0] >= 'A' && names[e][0] <= 'Z'));

    /* the name is an option prefix and an HDF5 group in the result file */
    for (const char *c = names[e]; *c; c++) identifier = (PetscBool)(identifier && ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'));
    PetscCheck(identifier, comm, PETSC_ERR_ARG_WRONG, "-experiments: '%s' is no experiment name; use letters, digits and _, beginning with a letter", names[e]);
  }
  for (PetscInt e = 0; e < nnames; e++)
    for (PetscInt f = 0; f < e; f++) {
      PetscBool same;

      PetscCall(PetscStrcmp(names[e], names[f], &same));
      PetscCheck(!same, comm, PETSC_ERR_ARG_WRONG, "-experiments names experiment '%s' twice: the names must be unique (their options are -%s_X)", names[e], names[e]);
    }
  PetscCall(MbsOptionListGet_Private(&spec->list, &spec->all));

  if (spec->set_names) {
    for (PetscInt e = 0; e < nnames; e++) {
      PetscOptions options;
      char         prefix[80];

      PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s_", names[e]));
      PetscCall(MbsExperimentOptionsCreate_Private(spec->all, &spec->list, prefix, &options));
      PetscCall(MbsExperimentAdd_Private(n, &nalloc, experiments, names[e], options));
    }
  } else if (spec->set_sweep) {
    PetscReal range[3];
    PetscInt  count;

    PetscCall(MbsParseSweep_Private(comm, spec->sweep, range));
    count = (PetscInt)PetscFloorReal((range[1] - range[0]) / range[2] + 1e-9) + 1;
    for (PetscInt s = 0; s < count; s++) {
      PetscReal    speed = range[0] + s * range[2];
      PetscOptions options;
      char         name[64], value[64];

      PetscCall(MbsExperimentOptionsCreate_Private(spec->all, NULL, NULL, &options));
      PetscCall(PetscSNPrintf(value, sizeof(value), "%.17g", (double)speed));
      PetscCall(PetscOptionsSetValue(options, "-stationary_rpm", value));
      PetscReal cycles = PetscMax(spec->warmup.cycles, PetscCeilReal(spec->warmup.time * speed / 60 - 1e-9));

      PetscCall(PetscSNPrintf(value, sizeof(value), "0,%.17g", (double)((cycles + spec->window) * 60 / speed)));
      PetscCall(PetscOptionsSetValue(options, "-time_span", value));
      if (spec->steps_per_revolution) {
        PetscCall(PetscSNPrintf(value, sizeof(value), "%.17g", (double)(60 / (speed * spec->steps_per_revolution))));
        PetscCall(PetscOptionsSetValue(options, "-ts_dt", value));
      }
      PetscCall(PetscSNPrintf(name, sizeof(name), "sweep_%grpm", (double)speed));
      PetscCall(MbsExperimentAdd_Private(n, &nalloc, experiments, name, options));
    }
  } else if (spec->set_segments) {
    PetscCall(MbsSegmentsCreate_Private(comm, spec->nsegments, &spec->warmup, spec->all, n, &nalloc, experiments));
  } else {
    PetscOptions options;

    PetscCall(MbsExperimentOptionsCreate_Private(spec->all, NULL, NULL, &options));
    PetscCall(MbsExperimentAdd_Private(n, &nalloc, experiments, "experiment", options));
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsExperimentsCreate - The experiments the options declare, each with its own options database. On an error the
  experiments made so far are in *n, *experiments, for the caller to free. Collective.
@*/
PetscErrorCode MbsExperimentsCreate(MPI_Comm comm, PetscInt *n, MbsExperiment **experiments)
{
  MbsExperimentsSpec spec;

  PetscFunctionBeginUser;
  *n           = 0;
  *experiments = NULL;
  PetscCall(PetscMemzero(&spec, sizeof(spec)));
  MbsCallCleanup(MbsExperimentsCreateFrom_Private(comm, &spec, n, experiments), MbsExperimentsSpecReset_Private(&spec));
  PetscFunctionReturn(0);
}

/*@C
  MbsExperimentsDistribute - Deals the experiments to the ranks by their cost: largest first, each to the rank with the
  least cost so far (the lowest rank on a tie), so that every rank computes the same assignment. Not collective.
@*/
PetscErrorCode MbsExperimentsDistribute(PetscInt n, MbsExperiment experiments[], PetscMPIInt size)
{
  PetscInt  *order;
  PetscReal *load;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(n, &order));
  PetscCall(PetscCalloc1(size, &load));
  for (PetscInt e = 0; e < n; e++) order[e] = e;
  for (PetscInt i = 1; i < n; i++) { /* stable insertion sort by decreasing cost */
    PetscInt e = order[i], j = i;

    while (j > 0 && experiments[order[j - 1]].steps < experiments[e].steps) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = e;
  }
  for (PetscInt i = 0; i < n; i++) {
    MbsExperiment *exp  = &experiments[order[i]];
    PetscMPIInt    best = 0;

    for (PetscMPIInt r = 1; r < size; r++)
      if (load[r] < load[best]) best = r;
    exp->rank = best;
    load[best] += exp->steps;
  }
  PetscCall(PetscFree(load));
  PetscCall(PetscFree(order));
  PetscFunctionReturn(0);
}

/* Marks in the global options what the experiment used (an option -a_X counts as used when experiment a used -X) */
static PetscErrorCode MbsExperimentMarkUsed_Private(MbsExperiment *exp)
{
  MbsOptionList list;
  char         *all;
  size_t        len;

  PetscFunctionBeginUser;
  PetscCall(MbsOptionListGet_Private(&list, &all));
  PetscCall(PetscStrlen(exp->name, &len));
  for (int i = 0; i < list.argc; i++) {
    PetscBool used = PETSC_FALSE, match, flag;

    if (!MbsIsOptionName(list.argv[i])) continue;
    PetscCall(PetscStrncmp(list.argv[i] + 1, exp->name, len, &match));
    /* the name without its dash; -<name>_X, marked used at the creation, counts only when -X was used */
    if (match && list.argv[i][len + 1] == '_') PetscCall(PetscOptionsUsed(exp->options, list.argv[i] + len + 2, &used));
    else PetscCall(PetscOptionsUsed(exp->options, list.argv[i] + 1, &used));
    if (used) PetscCall(PetscOptionsHasName(NULL, NULL, list.argv[i], &flag));
  }
  PetscCall(PetscStrToArrayDestroy(list.argc, list.argv));
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}

/*
  An experiment's options replace the global ones while its model, cost or integrator reads them. What either side
  has used is copied to the other at the switch: -unused_options_error asks the global options, and on an error PETSc
  lists the unused options of the database in force, which should name only real leftovers.
*/

/*@C
  MbsExperimentOptionsPush - Makes the experiment's options the default database. Not collective.
@*/
PetscErrorCode MbsExperimentOptionsPush(MbsExperiment *exp)
{
  PetscInt n;
  char   **names, **values;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsLeftGet(exp->options, &n, &names, &values));
  for (PetscInt i = 0; i < n; i++) {
    char      name[256];
    PetscBool used, flag;

    PetscCall(PetscOptionsUsed(NULL, names[i], &used));
    if (!used) continue;
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%s", names[i]));
    PetscCall(PetscOptionsHasName(exp->options, NULL, name, &flag));
  }
  PetscCall(PetscOptionsLeftRestore(exp->options, &n, &names, &values));
  PetscCall(PetscOptionsPush(exp->options));
  exp->pushed = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*@C
  MbsExperimentOptionsPop - Restores the default database that MbsExperimentOptionsPush() replaced. Not collective.
@*/
PetscErrorCode MbsExperimentOptionsPop(MbsExperiment *exp)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsPop());
  exp->pushed = PETSC_FALSE;
  PetscCall(MbsExperimentMarkUsed_Private(exp));
  PetscFunctionReturn(0);
}

/*@C
  MbsExperimentOptionsDestroy - Frees the experiment's options, popping them first where an error left them the
  default database. Not collective.
@*/
PetscErrorCode MbsExperimentOptionsDestroy(MbsExperiment *exp)
{
  PetscFunctionBeginUser;
  if (exp->pushed) PetscCall(MbsExperimentOptionsPop(exp));
  PetscCall(PetscOptionsDestroy(&exp->options));
  PetscFunctionReturn(0);
}
