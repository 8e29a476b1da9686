/*
  mbsid track: order tracking of a measured raw signal. The engine orders of /signal/y are computed with the windows,
  gain and quadrature of the cost (fourier.c), in the crank angle of a speed source:

    tacho    pulse times /tacho/t of a toothed wheel (-tacho_teeth N, -tacho_missing M: an N - M wheel whose gap
             marks each revolution); the mean speed over each pulse interval, at its middle, makes the speed table
    channel  the speed channel /signal/speed of the signal file, as a speed table
    ramp     the ideal run-up -ramp_rpm, -ramp_time (no table; the time domain of engine4.md unless -order_domain angle)

  The result is a measurement file with /orders and, for a table, the table itself as /speed_profile: an
  identification with -speed_profile on that file drives the engine with the measured speed and windows the
  simulated output exactly like the measured one. A raw measurement of several channels (/channels/NAME/signal) is
  tracked channel by channel against the one speed, into /channels/NAME/orders (the speed channel, if any, is the
  first channel's /signal/speed that exists).
*/
#include "commands/commandimpl.h"

typedef enum {
  MBS_SPEED_SOURCE_TACHO,
  MBS_SPEED_SOURCE_CHANNEL,
  MBS_SPEED_SOURCE_RAMP
} MbsSpeedSource;
static const char *const MbsSpeedSources[] = {"tacho", "channel", "ramp", "MbsSpeedSource", "MBS_SPEED_SOURCE_", NULL};

/* Interval i of the pulses in tooth pitches against the second smallest of the four nearest others: two gaps or lost
   pulses among them do not move it, but a steady acceleration biases it by the change of the interval per tooth */
static PetscInt MbsTachoFirstPitches_Private(PetscInt np, const PetscReal pulse[], PetscInt i)
{
  PetscInt  lo = PetscMax(0, PetscMin(i - 2, np - 6)), hi = PetscMin(lo + 5, np - 1);
  PetscReal small[2] = {PETSC_MAX_REAL, PETSC_MAX_REAL};

  for (PetscInt j = lo; j < hi; j++) {
    PetscReal dt = pulse[j + 1] - pulse[j];

    if (j == i) continue;
    if (dt < small[0]) {
      small[1] = small[0];
      small[0] = dt;
    } else if (dt < small[1]) small[1] = dt;
  }
  return PetscMax(1, (PetscInt)PetscFloorReal((pulse[i + 1] - pulse[i]) / small[1] + 0.5));
}

/*
  The tooth pitches interval i spans: the interval over the pitch there, the value at i of the straight line fitted
  through the pitches of the two intervals on either side (each interval divided by its first estimate of pitches,
  and placed at its centre, counted in pitches from the centre of i). A steady acceleration thus cancels, at the ends
  of the pulse train too, and jitter averages over four intervals. A toothed wheel gives 1, or M + 1 across its gap,
  each within a quarter of itself; anything else is refused where it stands.
*/
static PetscErrorCode MbsTachoPitches_Private(const char path[], PetscInt np, const PetscReal pulse[], PetscInt i, PetscInt teeth, PetscInt missing, PetscInt *pitches)
{
  PetscInt  count[5], n = 0;
  PetscReal x[4], y[4], xm = 0, ym = 0, sxx = 0, sxy = 0, ratio;
  char      declared[64];

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 5; d++) count[d] = i + d - 2 >= 0 && i + d - 1 < np ? MbsTachoFirstPitches_Private(np, pulse, i + d - 2) : 0;
  for (PetscInt d = 0; d < 5; d++) {
    if (d == 2 || !count[d]) continue;
    x[n] = (d < 2 ? -1 : 1) * (0.5 * (count[2] + count[d]) + (d == 0 ? count[1] : d == 4 ? count[3] : 0));
    y[n] = (pulse[i + d - 1] - pulse[i + d - 2]) / count[d];
    xm += x[n];
    ym += y[n];
    n++;
  }
  xm /= n;
  ym /= n;
  for (PetscInt k = 0; k < n; k++) {
    sxx += PetscSqr(x[k] - xm);
    sxy += (x[k] - xm) * (y[k] - ym);
  }
  ratio    = (pulse[i + 1] - pulse[i]) / (ym - sxy / sxx * xm);
  *pitches = ratio >= 0.5 && ratio < teeth ? (PetscInt)PetscFloorReal(ratio + 0.5) : 0; /* a pitch ahead of an extra pulse may extrapolate to 0 */
  PetscCheck(*pitches >= 1 && PetscAbsReal(ratio / *pitches - 1) <= 0.25, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Tachometer file '%s': the interval after pulse %" PetscInt_FMT " (t = %.9g s) is %.3g tooth pitches of its neighbours, not a whole number of them: a wheel gives one pulse per tooth (an extra pulse, jitter of a quarter of a pitch, or samples of a voltage instead of pulse times?)", path, i, (double)pulse[i], (double)ratio);
  if (*pitches == 1 || *pitches == missing + 1) PetscFunctionReturn(0);
  if (missing) PetscCall(PetscSNPrintf(declared, sizeof(declared), "a gap of %" PetscInt_FMT " missing %s", missing, missing == 1 ? "tooth" : "teeth"));
  else PetscCall(PetscStrncpy(declared, "no gap", sizeof(declared)));
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Tachometer file '%s': the interval after pulse %" PetscInt_FMT " (t = %.9g s) spans %" PetscInt_FMT " tooth pitches of its neighbours (a gap of %" PetscInt_FMT "), but the %" PetscInt_FMT "-%" PetscInt_FMT " wheel of -tacho_teeth, -tacho_missing has %s: give -tacho_missing %" PetscInt_FMT " if that is the wheel's gap, else pulses are lost", path, i, (double)pulse[i], *pitches, *pitches - 1, teeth, missing, declared, *pitches - 1);
}

/* The angles of the pulses and the speed at each, into rpm[] and angle[] */
static PetscErrorCode MbsTachoSpeedFill_Private(const char path[], PetscInt np, const PetscReal pulse[], PetscInt teeth, PetscInt missing, PetscReal rpm[], PetscReal angle[])
{
  PetscInt  per_revolution = teeth - missing, last_gap = -1;
  PetscReal pitch = 2 * PETSC_PI / teeth;

  PetscFunctionBeginUser;
  angle[0] = 0;
  for (PetscInt i = 0; i + 1 < np; i++) {
    PetscInt pitches;

    PetscCall(MbsTachoPitches_Private(path, np, pulse, i, teeth, missing, &pitches));
    if (pitches > 1) {
      PetscCheck(last_gap < 0 || i - last_gap == per_revolution, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Tachometer file '%s': the gap after pulse %" PetscInt_FMT " (t = %.9g s) comes %" PetscInt_FMT " pulses after the previous one, but a %" PetscInt_FMT "-%" PetscInt_FMT " wheel (-tacho_teeth, -tacho_missing) gives %" PetscInt_FMT ": pulses are lost or extra, or the wheel has %" PetscInt_FMT " teeth (-tacho_teeth)", path, i, (double)pulse[i], i - last_gap, teeth, missing, per_revolution, i - last_gap + missing);
      last_gap = i;
    }
    PetscCheck(!missing || i - last_gap < 2 * per_revolution, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Tachometer file '%s': no gap of %" PetscInt_FMT " missing teeth (an interval of %" PetscInt_FMT " tooth pitches) within the %" PetscInt_FMT " pulses after pulse %" PetscInt_FMT " (t = %.9g s): the wheel has no gap (-tacho_missing 0) or more than %" PetscInt_FMT " teeth (-tacho_teeth)", path, missing, missing + 1, 2 * per_revolution, last_gap + 1, (double)pulse[last_gap + 1], 2 * per_revolution + missing);
    angle[i + 1] = angle[i] + pitches * pitch;
  }
  for (PetscInt i = 0; i < np; i++) {
    PetscInt  first = PetscMin(PetscMax(i - 2, 0), np - 5);
    PetscReal rate  = 0;

    for (PetscInt j = first; j < first + 5; j++) { /* Lagrange: d/dt L_j at t_i, on times and angles relative to pulse i */
      PetscReal weight = 0;

      if (j == i)
        for (PetscInt k = first; k < first + 5; k++) weight += k == i ? 0 : 1 / (pulse[i] - pulse[k]);
      else {
        weight = 1 / (pulse[j] - pulse[i]);
        for (PetscInt k = first; k < first + 5; k++)
          if (k != i && k != j) weight *= (pulse[i] - pulse[k]) / (pulse[j] - pulse[k]);
      }
      rate += weight * (angle[j] - angle[i]);
    }
    rpm[i] = rate * 60 / (2 * PETSC_PI);
  }
  PetscFunctionReturn(0);
}

/*
  The speed table of a toothed wheel: pulse k at angle advance 2 pi/N per pulse, M + 1 pitches across the gap. Each
  interval is measured in tooth pitches of its neighbours (MbsTachoPitches_Private), which a run-up does not bias; it
  must be one pitch or the M + 1 of the gap, and gaps must come every N - M pulses, else the wheel or its signal is
  not what the options say (a 60-2 wheel read as 60-0 would take its gap for one slow tooth). The rows are the pulses
  with their exact angles; the speed at a pulse is the derivative of the quartic through the five nearest pulses,
  whose error is of fourth order in the pitch (a mean over one pitch, assigned to its middle, would be of second
  order).
*/
static PetscErrorCode MbsTachoSpeedTable_Private(const char path[], PetscInt np, const PetscReal pulse[], PetscInt teeth, PetscInt missing, PetscReal **rpm, PetscReal **angle)
{
  PetscInt per_revolution = teeth - missing;

  PetscFunctionBeginUser;
  PetscCheck(np >= 2 * per_revolution + 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "Tachometer file '%s': %" PetscInt_FMT " pulses are fewer than two revolutions of a %" PetscInt_FMT "-%" PetscInt_FMT " wheel", path, np, teeth, missing);
  PetscCall(PetscMalloc2(np, rpm, np, angle));
  MbsCallUndo(MbsTachoSpeedFill_Private(path, np, pulse, teeth, missing, *rpm, *angle), PetscFree2(*rpm, *angle));
  PetscFunctionReturn(0);
}

/* The orders -orders at the speeds -speed_rpm lo,hi,step, in the windows of opts */
static PetscErrorCode MbsTrackOrdersSetUp_Private(const MbsFourierOptions *opts, MbsFourier fourier)
{
  PetscInt   nspeed;
  PetscReal *speed;

  PetscFunctionBeginUser;
  PetscCheck(opts->norder > 0 && opts->nspeed_range == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "mbsid track needs the orders and speeds to track: -orders o1,o2,... -speed_rpm lo,hi,step");
  PetscCheck(opts->speed_range[2] > 0 && opts->speed_range[1] >= opts->speed_range[0] && opts->speed_range[0] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-speed_rpm needs lo,hi,step with 0 < lo <= hi and step > 0, got %g,%g,%g", (double)opts->speed_range[0],
             (double)opts->speed_range[1], (double)opts->speed_range[2]);
  nspeed = (PetscInt)PetscFloorReal((opts->speed_range[1] - opts->speed_range[0]) / opts->speed_range[2] + 1e-9) + 1;
  PetscCall(PetscMalloc1(nspeed, &speed));
  for (PetscInt s = 0; s < nspeed; s++) speed[s] = opts->speed_range[0] + s * opts->speed_range[2];
  PetscCall(MbsFourierSetWindowGain(fourier, opts->gain));
  MbsCallCleanup(MbsFourierAddOrders(fourier, opts->order_window, &opts->speed, opts->domain, opts->norder, opts->order, nspeed, speed), PetscFree(speed));
  PetscFunctionReturn(0);
}

/* The coefficients of every measured sample of one channel, as a signal whose quadrature is the trapezoidal rule on
   the samples */
static PetscErrorCode MbsTrackSignal_Private(const MbsMeasurement *raw, const char source[], MbsFourier fourier, PetscReal weight[])
{
  MbsSignal signal = {0};

  PetscFunctionBeginUser;
  PetscCall(MbsQuadratureWeights(raw->nsignal, raw->t, 0.5, weight));
  signal.n = signal.nq = raw->nsignal;
  signal.t = signal.tq = raw->t;
  signal.y = signal.yq = raw->y;
  signal.wq            = weight;
  PetscCall(MbsFourierCheckSignal(fourier, &signal, source));
  PetscCall(MbsFourierComputeSignal(fourier, &signal));
  PetscFunctionReturn(0);
}

/* The tracked orders of one channel's raw signal, with its name and units (result shares the Fourier object's speeds
   and orders) */
static PetscErrorCode MbsTrackChannel_Private(const MbsMeasurement *raw, const char source[], MbsFourier fourier, MbsMeasurement *result)
{
  const PetscReal *A, *B, *speed, *order;
  const char      *domain;
  PetscInt         offset, nspeed, norder;
  PetscReal       *weight;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(raw->nsignal, &weight));
  MbsCallCleanup(MbsTrackSignal_Private(raw, source, fourier, weight), PetscFree(weight));
  PetscCall(PetscMemzero(result, sizeof(*result)));
  PetscCall(PetscStrncpy(result->model, raw->model, sizeof(result->model)));
  PetscCall(PetscStrncpy(result->output, raw->output, sizeof(result->output)));
  PetscCall(PetscStrncpy(result->units, raw->units, sizeof(result->units)));
  PetscCall(MbsFourierGetCoefficients(fourier, &A, &B));
  PetscCall(MbsFourierGetOrderLayout(fourier, &offset, &nspeed, &speed, &norder, &order));
  PetscCall(MbsFourierGetOrderDomain(fourier, &domain));
  PetscCall(PetscStrncpy(result->order_domain, domain, sizeof(result->order_domain)));
  result->nspeed = nspeed;
  result->norder = norder;
  result->speed  = (PetscReal *)speed;
  result->order  = (PetscReal *)order;
  PetscCall(PetscMalloc3(nspeed * norder, &result->order_amplitude, nspeed * norder, &result->order_a, nspeed * norder, &result->order_b));
  for (PetscInt j = 0; j < nspeed * norder; j++) {
    result->order_a[j]         = A[offset + j];
    result->order_b[j]         = B[offset + j];
    result->order_amplitude[j] = PetscSqrtReal(PetscSqr(A[offset + j]) + PetscSqr(B[offset + j]));
  }
  PetscFunctionReturn(0);
}

/* Every channel of the raw measurement tracked against the one speed of opts: the orders of /signal, or of each
   /channels/NAME/signal into the result's channel NAME; the speed table, shared, at the result's root */
static PetscErrorCode MbsTrackResult_Private(const char input[], const MbsMeasurement *raw, const MbsFourierOptions *opts, MbsFourier fourier, MbsMeasurement *result)
{
  PetscFunctionBeginUser;
  PetscCall(MbsTrackOrdersSetUp_Private(opts, fourier));
  if (!raw->nchannel) PetscCall(MbsTrackChannel_Private(raw, input, fourier, result));
  else {
    PetscCall(PetscMemzero(result, sizeof(*result)));
    PetscCall(PetscStrncpy(result->model, raw->model, sizeof(result->model)));
    PetscCall(PetscCalloc1(raw->nchannel, &result->channel));
    for (PetscInt c = 0; c < raw->nchannel; c++) {
      char source[PETSC_MAX_PATH_LEN + 128];

      PetscCall(PetscSNPrintf(source, sizeof(source), "%s, channel %s", input, raw->channel[c].output));
      PetscCall(MbsTrackChannel_Private(&raw->channel[c], source, fourier, &result->channel[c]));
      result->nchannel++;
    }
  }
  result->nprofile      = opts->speed.ntable;
  result->profile_t     = opts->speed.table_t;
  result->profile_rpm   = opts->speed.table_rpm;
  result->profile_angle = opts->speed.table_phi;
  PetscFunctionReturn(0);
}

/* Frees the order tables of a result of MbsTrackResult_Private() (the rest it shares) */
static PetscErrorCode MbsTrackResultFree_Private(MbsMeasurement *result)
{
  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < result->nchannel; c++) PetscCall(MbsTrackResultFree_Private(&result->channel[c]));
  PetscCall(PetscFree(result->channel));
  PetscCall(PetscFree3(result->order_amplitude, result->order_a, result->order_b));
  PetscFunctionReturn(0);
}

typedef struct {
  MbsMeasurement    raw, pulses, result; /* result shares arrays of the Fourier object and of opts */
  MbsFourierOptions opts;
  MbsFourier        fourier;
  PetscReal        *rpm, *angle;
} MbsTrackCommand;

static PetscErrorCode MbsTrackCommandDestroy_Private(MbsTrackCommand *tc)
{
  PetscFunctionBeginUser;
  PetscCall(MbsTrackResultFree_Private(&tc->result));
  PetscCall(PetscFree2(tc->rpm, tc->angle));
  PetscCall(MbsFourierDestroy(&tc->fourier));
  PetscCall(MbsMeasurementReset(&tc->pulses));
  PetscCall(MbsMeasurementReset(&tc->raw));
  PetscCall(MbsFourierOptionsReset(&tc->opts));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsTrackRun_Private(MPI_Comm comm, MbsTrackCommand *tc)
{
  char                  input[PETSC_MAX_PATH_LEN] = "", tacho[PETSC_MAX_PATH_LEN] = "", output[PETSC_MAX_PATH_LEN] = "tracked.h5", source_text[2 * PETSC_MAX_PATH_LEN + 64];
  MbsSpeedSource        source = MBS_SPEED_SOURCE_RAMP;
  PetscInt              teeth = 60, missing = 2;
  PetscBool             source_set, help;
  MbsMeasurement       *raw = &tc->raw, *result = &tc->result;
  MbsFourierOptions    *opts = &tc->opts;
  PetscInt              nchannel;
  const MbsMeasurement *channel, *speed_channel = NULL;

  PetscFunctionBeginUser;
  MbsOptionsBegin(comm, NULL, "mbsid track: engine orders of a measured raw signal", "track");
  PetscCall(MbsOptionsInputFile(PetscOptionsObject, "-measurement", "Measurement file with the raw signal /signal/t, /signal/y (mbsid import -kind signal)", "", input, sizeof(input), NULL));
  PetscCall(MbsOptionsInputFile(PetscOptionsObject, "-tacho", "Measurement file with the tachometer pulse times /tacho/t (mbsid import -kind tacho)", "", tacho, sizeof(tacho), NULL));
  PetscCall(PetscOptionsEnum("-speed_source", "Speed that places the windows: tacho pulses, the speed channel /signal/speed, or the ideal ramp (default: tacho with -tacho)", "", MbsSpeedSources, (PetscEnum)source, (PetscEnum *)&source, &source_set));
  PetscCall(MbsOptionsIntRange(PetscOptionsObject, "-tacho_teeth", "Teeth of the tachometer wheel, the missing ones included", &teeth, PETSC_MIN_INT, PETSC_MAX_INT, NULL));
  PetscCall(MbsOptionsIntRange(PetscOptionsObject, "-tacho_missing", "Missing teeth of the wheel's reference gap (0: none)", &missing, PETSC_MIN_INT, PETSC_MAX_INT, NULL));
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-o", "Result file: the tracked orders, and the speed table /speed_profile (HDF5, measurement schema)", output, sizeof(output)));
  MbsOptionsEnd();
  if (!source_set && tacho[0]) source = MBS_SPEED_SOURCE_TACHO;
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) {
    PetscCall(MbsFourierOptionsRead(0, 1, NULL, opts));
    PetscFunctionReturn(0);
  }
  PetscCheck(teeth >= 2 && missing >= 0 && missing <= teeth - 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "-tacho_teeth %" PetscInt_FMT " -tacho_missing %" PetscInt_FMT ": need at least 2 teeth, and at least 2 of them present", teeth, missing);
  PetscCheck(input[0], comm, PETSC_ERR_ARG_WRONG, "mbsid track needs the raw signal: -measurement FILE with /signal/t, /signal/y");
  PetscCheck(source != MBS_SPEED_SOURCE_TACHO || tacho[0], comm, PETSC_ERR_ARG_WRONG, "-speed_source tacho needs -tacho FILE with /tacho/t");
  PetscCall(MbsMeasurementRead(comm, input, raw));
  PetscCall(MbsMeasurementGetChannels(raw, &nchannel, &channel));
  for (PetscInt c = 0; c < nchannel; c++)
    PetscCheck(channel[c].nsignal >= 2, comm, PETSC_ERR_ARG_WRONG, "Measurement file '%s' has no raw signal %s%s/signal/t, /signal/y to track", input, raw->nchannel ? "/channels/" : "", raw->nchannel ? channel[c].output : "");
  for (PetscInt c = 0; c < nchannel && !speed_channel; c++)
    if (channel[c].signal_speed) speed_channel = &channel[c];
  PetscCall(MbsFourierOptionsRead(channel[0].t[0], channel[0].t[channel[0].nsignal - 1], NULL, opts)); /* the ideal ramp spans the signal unless -ramp_time says otherwise */
  PetscCheck(!opts->speed.ntable, comm, PETSC_ERR_ARG_INCOMP, "mbsid track derives the speed from -speed_source; -speed_profile does not apply");
  PetscCall(MbsOptionsCheckUnused(comm, PETSC_FALSE));

  if (source == MBS_SPEED_SOURCE_TACHO) {
    MbsMeasurement *pulses = &tc->pulses;
    PetscReal      *rpm, *angle;

    PetscCall(MbsMeasurementRead(comm, tacho, pulses));
    PetscCheck(pulses->ntacho > 0, comm, PETSC_ERR_ARG_WRONG, "Measurement file '%s' has no tachometer pulses /tacho/t (-tacho)", tacho);
    PetscCall(MbsTachoSpeedTable_Private(tacho, pulses->ntacho, pulses->tacho, teeth, missing, &tc->rpm, &tc->angle));
    rpm   = tc->rpm;
    angle = tc->angle;
    PetscCall(PetscSNPrintf(source_text, sizeof(source_text), "the tachometer pulses of '%s'", tacho));
    PetscCall(MbsSpeedProfileSetTable(&opts->speed, pulses->ntacho, pulses->tacho, rpm, angle, source_text));
    PetscCall(PetscPrintf(comm, "Tachometer '%s': %" PetscInt_FMT " pulses of a %" PetscInt_FMT "-%" PetscInt_FMT " wheel over t = [%g, %g] s, speed %g to %g rpm\n", tacho, pulses->ntacho, teeth, missing, (double)pulses->tacho[0],
                          (double)pulses->tacho[pulses->ntacho - 1], (double)rpm[0], (double)rpm[pulses->ntacho - 1]));
  } else if (source == MBS_SPEED_SOURCE_CHANNEL) {
    PetscCheck(speed_channel, comm, PETSC_ERR_ARG_WRONG, "Measurement file '%s' has no speed channel /signal/speed (-speed_source channel)", input);
    PetscCall(PetscSNPrintf(source_text, sizeof(source_text), "the speed channel %s%s/signal/speed of '%s'", raw->nchannel ? "/channels/" : "", raw->nchannel ? speed_channel->output : "", input));
    PetscCall(MbsSpeedProfileSetTable(&opts->speed, speed_channel->nsignal, speed_channel->t, speed_channel->signal_speed, NULL, source_text));
  }
  if (opts->speed.ntable) {
    PetscBool domain_set;

    PetscCall(PetscOptionsHasName(NULL, NULL, "-order_domain", &domain_set));
    if (!domain_set) opts->domain = MBS_ORDER_DOMAIN_ANGLE; /* as for -speed_profile */
    PetscCheck(opts->domain == MBS_ORDER_DOMAIN_ANGLE, comm, PETSC_ERR_ARG_INCOMP, "-order_domain time places its windows on the linear run-up; a measured speed (-speed_source %s) needs -order_domain angle", MbsSpeedSources[source]);
  } else
    PetscCall(PetscSNPrintf(source_text, sizeof(source_text), "the ideal run-up -ramp_rpm %g,%g -ramp_time %g,%g", (double)opts->speed.ramp_rpm[0], (double)opts->speed.ramp_rpm[1], (double)opts->speed.ramp_time[0], (double)opts->speed.ramp_time[1]));

  PetscCall(MbsFourierCreate(&tc->fourier));
  PetscCall(PetscPrintf(comm, "Tracking orders of '%s' (%" PetscInt_FMT " channel(s), %" PetscInt_FMT " samples over t = [%g, %g] s) in the %s domain of %s\n", input, nchannel, channel[0].nsignal, (double)channel[0].t[0],
                        (double)channel[0].t[channel[0].nsignal - 1], MbsOrderDomains[opts->domain], source_text));
  PetscCall(MbsTrackResult_Private(input, raw, opts, tc->fourier, result));
  PetscCall(PetscSNPrintf(result->created_by, sizeof(result->created_by), "mbsid %s track (%s domain, %s)", MBSID_VERSION, MbsOrderDomains[opts->domain], MbsSpeedSources[source]));
  PetscCall(MbsMeasurementWrite(comm, output, result));
  {
    const MbsMeasurement *tracked;

    PetscCall(MbsMeasurementGetChannels(result, &nchannel, &tracked));
    PetscCall(PetscPrintf(comm, "Wrote %s: %" PetscInt_FMT " orders at %" PetscInt_FMT " speeds from %g to %g rpm%s%s\n", output, tracked[0].norder, tracked[0].nspeed, (double)tracked[0].speed[0], (double)tracked[0].speed[tracked[0].nspeed - 1],
                          result->nchannel ? " of every channel" : "", result->nprofile ? ", and the speed table /speed_profile for -speed_profile" : ""));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCommandTrack(MPI_Comm comm)
{
  MbsTrackCommand tc;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&tc, sizeof(tc)));
  MbsCallCleanup(MbsTrackRun_Private(comm, &tc), MbsTrackCommandDestroy_Private(&tc));
  PetscFunctionReturn(0);
}
