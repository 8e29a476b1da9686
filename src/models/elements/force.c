/*
  Element force: an excitation F(t) e at a body point, e a fixed unit direction in ground axes and either harmonics

    F(t) = sum_i A_i sin(2 pi f_i t + phi_i)  for t <= until,  0 after    [N]

  or a sine sweep from f0 to f1 over [t0, t1] (zero outside), tau = t - t0, T = t1 - t0,

    F(t) = A sin(2 pi int_0^tau f + phi),   f(tau) = f0 + (f1 - f0) tau / T                 (sweep: linear)
                                            f(tau) = f0 (f1 / f0)^(tau / T)                 (sweep: exponential)
    int_0^tau f = f0 tau + (f1 - f0) tau^2 / (2 T)   or   f0 T ((f1 / f0)^(tau / T) - 1) / ln(f1 / f0).

  Its generalised force is f = P^T e F(t), P the (constant) Jacobian of the point; dF/dA_i, dF/df_i, dF/dphi_i (dF/dA,
  dF/dphi of a sweep) where those are parameters. Fields: body, point (ground coordinates at the initial pose, default
  the centre of mass), direction (its components may be parameters, unit "1": e = a/|a| at the current parameters,
  de/dp_j = (I - e e^T) da/dp_j / |a|, geometry.c "Axes"), then for harmonics amplitudes [N], frequencies [Hz],
  phases [rad] (default 0), lists of equal length (at most 8), until [s] (default: for ever; a pulse of whole periods
  that ends smoothly, as the cart's move of cart_pendulum_chain.md); for a sweep: sweep (linear or exponential),
  amplitude [N], phase [rad] (default 0), frequencies: [f0, f1] (positive, different) [Hz], sweep_time: [t0, t1] [s]
  (default the file's time), each a number or a parameter whose bounds keep f0, f1 > 0, f0 != f1 and t0 < t1 on their
  whole box;
  for a recorded force: history: FILE (as -input_file takes it, HDF5 or text; a relative path from the model file's
  folder), F(t) = scale h(t), h the piecewise-linear interpolant of its nodes (end values held outside), scale
  (dimensionless, unit "1", default 1). -input_file itself drives a hand-coded model's force coordinate, which a
  described model has not: its forces act at points of bodies, so the history is a field of the force element.

  frame: body (default ground) turns the direction with the body: F(t) R R0^T e at the point, the follower force of
  engine_force with this file's law (MbsFollowerForce, engine_order.c), whose generalised force depends on q; a
  controller's input (input: true) is refused there, since the model keeps its Jacobian at (t, U), which the
  controller's force would change.

  ramp: T_r [s] (harmonics and sweeps) tapers the start: F(t) w(tau), w = sin^2(pi tau / (2 T_r)) for tau < T_r and 1
  after, tau from the sweep's t0 (harmonics: the file's t0); F, F' and F'' vanish at tau = 0, so a start from rest
  excites no beam mode beyond the force's own frequencies (beam_bushings.md, section 5). T_r may be a parameter (its
  bounds keeping the taper within the law's interval), and the sweep's t0 moves the taper's start: MbsTimeLaw gives
  their derivatives. until stays a number: the force switches off there, so the discrete cost of fixed steps is
  piecewise constant in it. The law's parameters of the force with input: true are refused in design (ForceSecond),
  whose nodal input replaces the law.
*/
#include "models/elements/elementimpl.h"

/* A sweep or a history takes none of the harmonics' fields but those it names in allowed */
static PetscErrorCode RefuseHarmonics(MbsYAMLReader *reader, void *node, const char what[], const char allowed[])
{
  const char *key[] = {"amplitudes", "frequencies", "phases", "until"};

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < 4; i++)
    if (!strstr(allowed, key[i]) && MbsYAMLHasField(reader, node, key[i])) PetscCall(MbsYAMLError(reader, node, "%s takes %s, not the harmonics' %s", what, allowed, key[i]));
  PetscFunctionReturn(0);
}

/* The values v may take: its parameter's bounds, or the number itself */
static void ValueBox(MbsDescription desc, const MbsValue *v, PetscReal box[2])
{
  box[0] = v->param >= 0 ? desc->param_info[v->param].lower : v->value;
  box[1] = v->param >= 0 ? desc->param_info[v->param].upper : v->value;
}

/* The name of v's parameter, for messages ("" for a number) */
static const char *ValueName(MbsDescription desc, const MbsValue *v)
{
  return v->param >= 0 ? desc->param_info[v->param].name : "";
}

/*
  ramp: T_r (a number or a parameter), the taper from start on; it must end by end (the sweep's t1, the harmonics'
  until): at the file's values and over the box of the parameters' bounds, where the identification may take them
*/
static PetscErrorCode RampRead(MbsYAMLReader *reader, void *node, MbsValue start, MbsValue end, const char what[], MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscReal      s[2], e[2], r[2];
  PetscInt       set;

  PetscFunctionBeginUser;
  el->ramp[0] = start;
  el->ramp[1] = (MbsValue){0, -1};
  PetscCall(MbsYAMLReadValues(reader, node, "ramp", "s", PETSC_FALSE, 1, &el->ramp[1], &set));
  if (!set) PetscFunctionReturn(0);
  ValueBox(desc, &start, s);
  ValueBox(desc, &end, e);
  ValueBox(desc, &el->ramp[1], r);
  if (!(el->ramp[1].value > 0)) PetscCall(MbsYAMLError(reader, node, "ramp: the taper's length must be a positive time [s], got %g", (double)el->ramp[1].value));
  if (!(start.value + el->ramp[1].value <= end.value)) PetscCall(MbsYAMLError(reader, node, "ramp: the taper of %g s does not end within %s = [%g, %g] s", (double)el->ramp[1].value, what, (double)start.value, (double)end.value));
  if (!(r[0] > 0)) PetscCall(MbsYAMLError(reader, node, "ramp: parameter '%s' has the lower bound %g; the taper's length must stay a positive time [s] over its bounds", ValueName(desc, &el->ramp[1]), (double)r[0]));
  if (!(s[1] + r[1] <= e[0]))
    PetscCall(MbsYAMLError(reader, node, "ramp: over the bounds of its parameters the taper may end after %s: a start up to %g s plus a length up to %g s passes %g s; narrow the bounds of the parameters in ramp and sweep_time", what, (double)s[1], (double)r[1], (double)e[0]));
  PetscFunctionReturn(0);
}

/*
  sweep, amplitude, phase, frequencies: [f0, f1], sweep_time: [t0, t1] of a sweep; f0, f1 and t0, t1 may be
  parameters, whose bounds must keep f0, f1 > 0, f0 != f1 and t0 < t1 (checked on their box)
*/
static PetscErrorCode SweepRead(MbsYAMLReader *reader, void *node, const char law[], const char unit[], MbsElement *el)
{
  MbsDescription desc  = MbsYAMLReaderDescription(reader);
  MbsSweep      *sweep = &el->sweep;
  PetscReal      f0[2], f1[2], t0[2], t1[2];

  PetscFunctionBeginUser;
  if (strcmp(law, "linear") && strcmp(law, "exponential")) PetscCall(MbsYAMLError(reader, node, "sweep: '%s' is neither linear nor exponential", law));
  PetscCall(RefuseHarmonics(reader, node, "a sweep", "amplitude, phase, frequencies: [f0, f1] and sweep_time: [t0, t1]"));
  sweep->law         = strcmp(law, "linear") ? MBS_SWEEP_EXPONENTIAL : MBS_SWEEP_LINEAR;
  el->nharmonic      = 1;
  el->harmonic[0][1] = (MbsValue){0, -1}; /* ForceLaw's harmonic of frequency 0, turned by the sweep's angle */
  el->harmonic[0][2] = (MbsValue){0, -1};
  PetscCall(MbsYAMLReadValues(reader, node, "amplitude", unit, PETSC_TRUE, 1, &el->harmonic[0][0], NULL));
  PetscCall(MbsYAMLReadValues(reader, node, "phase", "rad", PETSC_FALSE, 1, &el->harmonic[0][2], NULL));
  PetscCall(MbsYAMLReadValues(reader, node, "frequencies", "Hz", PETSC_TRUE, 2, sweep->f, NULL));
  sweep->t[0] = (MbsValue){desc->t0, -1};
  sweep->t[1] = (MbsValue){desc->tf, -1};
  PetscCall(MbsYAMLReadValues(reader, node, "sweep_time", "s", PETSC_FALSE, 2, sweep->t, NULL));
  if (!(sweep->f[0].value > 0 && sweep->f[1].value > 0)) PetscCall(MbsYAMLError(reader, node, "a sweep's frequencies [f0, f1] must be positive, got [%g, %g] Hz", (double)sweep->f[0].value, (double)sweep->f[1].value));
  if (sweep->f[0].value == sweep->f[1].value) PetscCall(MbsYAMLError(reader, node, "a sweep from %g Hz to itself is a harmonic: give two different frequencies, or amplitudes and frequencies without sweep", (double)sweep->f[0].value));
  if (!(sweep->t[1].value > sweep->t[0].value)) PetscCall(MbsYAMLError(reader, node, "sweep_time [t0, t1] needs t0 < t1, got [%g, %g] s", (double)sweep->t[0].value, (double)sweep->t[1].value));
  ValueBox(desc, &sweep->f[0], f0);
  ValueBox(desc, &sweep->f[1], f1);
  ValueBox(desc, &sweep->t[0], t0);
  ValueBox(desc, &sweep->t[1], t1);
  if (!(f0[0] > 0 && f1[0] > 0))
    PetscCall(MbsYAMLError(reader, node, "frequencies: the bounds of parameter '%s' reach %g Hz; a sweep's frequencies must stay positive over them", ValueName(desc, &sweep->f[f0[0] > 0]), (double)PetscMin(f0[0], f1[0])));
  if (!(f0[1] < f1[0] || f1[1] < f0[0]))
    PetscCall(MbsYAMLError(reader, node, "frequencies: over the bounds of their parameters f0 in [%g, %g] Hz and f1 in [%g, %g] Hz may meet, where the sweep is a harmonic; give bounds that keep f0 and f1 apart", (double)f0[0], (double)f0[1], (double)f1[0], (double)f1[1]));
  if (!(t0[1] < t1[0]))
    PetscCall(MbsYAMLError(reader, node, "sweep_time: over the bounds of their parameters t0 in [%g, %g] s and t1 in [%g, %g] s may meet; give bounds that keep t0 < t1", (double)t0[0], (double)t0[1], (double)t1[0], (double)t1[1]));
  PetscCall(RampRead(reader, node, sweep->t[0], sweep->t[1], "the sweep's time [t0, t1]", el));
  PetscFunctionReturn(0);
}

/*
  history: FILE, a force history read as -input_file reads one (input.c: HDF5 /input/time, /input/force, or text with
  F or t, F per line, a one-column file spread over the file's time), a relative path taken from the model file's
  folder; scale (default 1) multiplies it
*/
static PetscErrorCode HistoryRead(MbsYAMLReader *reader, void *node, const char file[], MbsElement *el)
{
  MbsDescription desc  = MbsYAMLReaderDescription(reader);
  const char    *slash = strrchr(desc->file, '/');
  char           path[PETSC_MAX_PATH_LEN];
  FILE          *stream;

  PetscFunctionBeginUser;
  PetscCall(RefuseHarmonics(reader, node, "a history", "history: FILE and scale"));
  if (file[0] != '/' && slash) PetscCall(PetscSNPrintf(path, sizeof(path), "%.*s/%s", (int)(slash - desc->file), desc->file, file));
  else PetscCall(PetscStrncpy(path, file, sizeof(path)));
  stream = fopen(path, "rb");
  if (!stream) PetscCall(MbsYAMLError(reader, node, "history: cannot read the force history '%s' (%s)", path, file[0] == '/' ? "no such file or no permission" : "relative paths start at the model file's folder"));
  fclose(stream);
  el->harmonic[0][0] = (MbsValue){1, -1};
  PetscCall(MbsYAMLReadValues(reader, node, "scale", "1", PETSC_FALSE, 1, &el->harmonic[0][0], NULL));
  PetscCall(MbsInputRead(path, desc->t0, desc->tf, &el->nnode, &el->node_t, &el->node_F)); /* its errors name the history file */
  PetscFunctionReturn(0);
}

/*
  MbsTimeLawRead - The time law s(t) of an excitation or a prescribed motion: harmonics (amplitudes in unit,
  frequencies, phases, until), a sweep (sweep, amplitude in unit, phase, frequencies, sweep_time) or a recorded history
  (history: FILE, scale).
*/
PetscErrorCode MbsTimeLawRead(MbsYAMLReader *reader, void *node, const char unit[], MbsElement *el)
{
  MbsValue    values[3][MBS_MAX_HARMONICS];
  PetscInt    count[3], nlaw = 1, nfile = 1;
  const char *law[1], *file[1];
  PetscBool   set;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadWords(reader, node, "sweep", &nlaw, law));
  if (nlaw) {
    PetscCall(SweepRead(reader, node, law[0], unit, el));
    PetscFunctionReturn(0);
  }
  PetscCall(MbsYAMLReadWords(reader, node, "history", &nfile, file));
  if (nfile) {
    PetscCall(HistoryRead(reader, node, file[0], el));
    PetscFunctionReturn(0);
  }
  PetscCall(MbsYAMLReadValues(reader, node, "amplitudes", unit, PETSC_TRUE, MBS_MAX_HARMONICS, values[0], &count[0]));
  PetscCall(MbsYAMLReadValues(reader, node, "frequencies", "Hz", PETSC_TRUE, MBS_MAX_HARMONICS, values[1], &count[1]));
  PetscCall(MbsYAMLReadValues(reader, node, "phases", "rad", PETSC_FALSE, MBS_MAX_HARMONICS, values[2], &count[2]));
  if (count[1] != count[0] || (count[2] && count[2] != count[0]))
    PetscCall(MbsYAMLError(reader, node, "amplitudes, frequencies and phases need one entry per harmonic (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ")", count[0], count[1], count[2]));
  el->nharmonic = count[0];
  el->until     = PETSC_MAX_REAL;
  PetscCall(MbsYAMLReadNumber(reader, node, "until", &el->until, &set));
  PetscCall(RampRead(reader, node, (MbsValue){MbsYAMLReaderDescription(reader)->t0, -1}, (MbsValue){el->until, -1}, "its time [t0, until]", el));
  for (PetscInt i = 0; i < el->nharmonic; i++)
    for (PetscInt j = 0; j < 3; j++) {
      el->harmonic[i][j] = values[j][i];
      if (j == 2 && !count[2]) el->harmonic[i][j] = (MbsValue){0, -1};
    }
  PetscFunctionReturn(0);
}

/* input: true makes the force the one -input_file drives (the model's nodal input replaces its law, which it may then
   leave out: zero without an input) */
static PetscErrorCode ForceRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  const char *input[1];
  PetscInt    ninput = 1;
  PetscReal   direction[3];

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadBody(reader, node, "body", PETSC_TRUE, &el->body[0]));
  if (el->body[0] == MBS_GROUND) PetscCall(MbsYAMLError(reader, node, "a force on the ground does nothing; name a body"));
  PetscCall(MbsYAMLReadWorldPoint(reader, node, el->body[0], el->vector[0]));
  PetscCall(MbsYAMLReadAxis(reader, node, "direction", el, el->vector[1]));
  PetscCall(PetscArraycpy(direction, el->vector[1], 3));
  PetscCall(MbsSensorReadFrame(reader, node, el->body[0], direction, &el->turning)); /* frame: as a sensor's; the follower's maps turn the direction themselves (MbsJointAxisUnit) */
  PetscCall(MbsYAMLReadWords(reader, node, "input", &ninput, input));
  if (ninput && strcmp(input[0], "true") && strcmp(input[0], "false")) PetscCall(MbsYAMLError(reader, node, "input: '%s' is neither true nor false", input[0]));
  el->takes_input = (PetscBool)(ninput && !strcmp(input[0], "true"));
  if (el->takes_input && el->turning) PetscCall(MbsYAMLError(reader, node, "input: true takes a force of frame: ground; one of frame: body (a follower force, whose Jacobian follows its size) cannot carry -input_file or a controller"));
  if (el->takes_input && !MbsYAMLHasField(reader, node, "amplitudes") && !MbsYAMLHasField(reader, node, "sweep") && !MbsYAMLHasField(reader, node, "history")) PetscFunctionReturn(0);
  PetscCall(MbsTimeLawRead(reader, node, "N", el));
  PetscFunctionReturn(0);
}

/*
  The sweep's angle Phi = 2 pi int_0^tau f at t (before phi) and its first three time derivatives, and with dangle (may
  be NULL) the derivatives of Phi, Phi', Phi'' by f0, f1, t0, t1 (dangle[3 k + order]); whether t lies in [t0, t1].
  With u = tau / T, f the instantaneous frequency:
    linear       Phi = 2 pi (f0 tau + (f1 - f0) tau u / 2),  f = f0 + (f1 - f0) u
    exponential  Phi = 2 pi T (f - f0) / L,                  f = f0^(1 - u) f1^u, L = ln(f1 / f0)
  By T at fixed tau (d/dt1); d/dt0 = -d/dtau - d/dT, tau and T both moving with t0.
*/
static PetscBool SweepAngle(const MbsSweep *sweep, const PetscReal p[], PetscReal t, PetscReal angle[4], PetscReal dangle[12])
{
  PetscReal t0 = MbsValueOf(&sweep->t[0], p), t1 = MbsValueOf(&sweep->t[1], p), f0 = MbsValueOf(&sweep->f[0], p), f1 = MbsValueOf(&sweep->f[1], p);
  PetscReal tau = t - t0, T = t1 - t0, u = tau / T, c = 2 * PETSC_PI, *dT = dangle ? dangle + 9 : NULL;

  if (tau < 0 || t > t1) return PETSC_FALSE;
  if (sweep->law == MBS_SWEEP_LINEAR) {
    PetscReal df = f1 - f0;

    angle[0] = c * (f0 * tau + df * tau * u / 2);
    angle[1] = c * (f0 + df * u);
    angle[2] = c * df / T;
    angle[3] = 0;
    if (dangle) {
      PetscReal d[9] = {c * (tau - tau * u / 2), c * (1 - u), -c / T, c * tau * u / 2, c * u, c / T, -c * df * tau * u / (2 * T), -c * df * u / T, -c * df / (T * T)};

      for (PetscInt k = 0; k < 3; k++) {
        dangle[k]     = d[k];
        dangle[3 + k] = d[3 + k];
        dT[k]         = d[6 + k];
      }
    }
  } else {
    PetscReal L = PetscLogReal(f1 / f0), f = f0 * PetscPowReal(f1 / f0, u);

    angle[0] = c * T * (f - f0) / L;
    angle[1] = c * f;
    angle[2] = c * f * L / T;
    angle[3] = c * f * L * L / (T * T);
    if (dangle) {
      PetscReal d[9] = {c * T * (((1 - u) * f / f0 - 1) / L + (f - f0) / (f0 * L * L)), c * (1 - u) * f / f0, c * f * ((1 - u) * L - 1) / (f0 * T), c * T * (u * f / f1 / L - (f - f0) / (f1 * L * L)), c * u * f / f1, c * f * (u * L + 1) / (f1 * T), c * ((f - f0) / L - f * u), -c * f * L * u / T, -c * f * L * (L * u + 1) / (T * T)};

      for (PetscInt k = 0; k < 3; k++) {
        dangle[k]     = d[k];
        dangle[3 + k] = d[3 + k];
        dT[k]         = d[6 + k];
      }
    }
  }
  for (PetscInt k = 0; k < 3 && dangle; k++) dangle[6 + k] = -angle[k + 1] - dT[k];
  return PETSC_TRUE;
}

/* The piecewise-linear interpolant of the nodes (t_k, F_k) at time, or its rate (order 1: the interval's slope, zero
   outside the nodes, where the end values hold), or its second derivative (zero) */
static PetscReal Nodal(PetscInt n, const PetscReal t[], const PetscReal F[], PetscReal time, PetscInt order)
{
  PetscInt  k;
  PetscReal w[2];

  MbsNodalHat(n, t, time, &k, w);
  if (order == 0) return w[0] * F[k] + w[1] * F[k + 1];
  if (order == 1 && time >= t[0] && time <= t[n - 1]) return (F[k + 1] - F[k]) / (t[k + 1] - t[k]);
  return 0;
}

/*
  MbsTimeLaw - The time law's derivative of the given order (0, 1 or 2) at t, and its derivatives by the parameters among
  A_i, f_i, phi_i (A, phi, f0, f1, t0, t1 of a sweep; scale of a history; the taper's length) added into dsdp (may be
  NULL). Of g = A sin(theta), theta' = 2 pi f (+ the sweep's angle rate): g' = A cos(theta) theta',
  g'' = A (cos(theta) theta'' - sin(theta) theta'^2); d/dphi = d/dtheta, d/df = 2 pi (t d/dtheta + d/dtheta'), and by a
  sweep's f0, f1, t0, t1 through its angle (SweepAngle). The taper w = sin^2(x), x = a (t - t_s), a = pi / (2 T_r), has
  w^(k) = a^k h_k(x) (h_k the k-th derivative of sin^2), so dw^(k)/dt_s = -w^(k+1) and
  dw^(k)/dT_r = -(k w^(k) + (t - t_s) w^(k+1)) / T_r; t_s is a sweep's t0 (its parameter, if any) or the file's t0. The
  switch-on at t0 and off at t1 (or until) are steps in time whose moving a fixed step grid does not see: these are the
  derivatives of the smooth law inside them. A history's interpolant is piecewise linear: its rate is the slope of the
  interval (zero past the ends), its second derivative zero.
*/
PetscReal MbsTimeLaw(MbsDescription desc, const MbsElement *el, PetscReal t, PetscInt order, PetscReal dsdp[])
{
  PetscReal s = 0, sweep[4] = {0, 0, 0, 0}, dsweep[12] = {0}, w[4] = {1, 0, 0, 0}, dw[2][3] = {{0}}; /* a sweep is one harmonic of frequency 0 whose angle adds the sweep's; w: the taper, dw its derivatives by its start and length */
  PetscReal start = MbsValueOf(&el->ramp[0], desc->p), length = MbsValueOf(&el->ramp[1], desc->p);

  if (el->input && el->input->type == MBS_INPUT_SINE) return MbsInputSine(el->input, t, order); /* design's comparison input */
  if (el->input) return Nodal(el->input->n, el->input->t, el->input->F, t, order);              /* -input_file (input: true) */
  if (el->nnode) {                                                                              /* scale times the history's piecewise-linear interpolant */
    const MbsValue *scale   = &el->harmonic[0][0];
    PetscReal       history = Nodal(el->nnode, el->node_t, el->node_F, t, order);

    if (dsdp && scale->param >= 0) dsdp[scale->param] += history;
    return MbsValueOf(scale, desc->p) * history;
  }

  if (el->sweep.law ? !SweepAngle(&el->sweep, desc->p, t, sweep, dsdp ? dsweep : NULL) : t > el->until) return 0;
  if (length > 0 && t >= start && t - start < length) { /* the taper w and its rates */
    PetscReal a = PETSC_PI / (2 * length), x = a * (t - start);

    w[0] = PetscSqr(PetscSinReal(x));
    w[1] = a * PetscSinReal(2 * x);
    w[2] = 2 * a * a * PetscCosReal(2 * x);
    w[3] = -4 * a * a * a * PetscSinReal(2 * x);
    for (PetscInt k = 0; k < 3 && dsdp; k++) {
      dw[0][k] = -w[k + 1];
      dw[1][k] = -(k * w[k] + (t - start) * w[k + 1]) / length;
    }
  }
  for (PetscInt i = 0; i < el->nharmonic; i++) {
    const MbsValue *h = el->harmonic[i];
    PetscReal       A = MbsValueOf(&h[0], desc->p), theta = sweep[0] + 2 * PETSC_PI * MbsValueOf(&h[1], desc->p) * t + MbsValueOf(&h[2], desc->p);
    PetscReal       rate = sweep[1] + 2 * PETSC_PI * MbsValueOf(&h[1], desc->p), S = PetscSinReal(theta), C = PetscCosReal(theta);
    /* g / A, and d(g / A) by theta, theta', theta'' */
    PetscReal g[3] = {S, C * rate, C * sweep[2] - S * rate * rate}, g_theta[3] = {C, -S * rate, -S * sweep[2] - C * rate * rate}, g_rate[3] = {0, C, -2 * S * rate}, g_accel[3] = {0, 0, C};

    for (PetscInt k = 0; k <= order; k++) { /* Leibniz: (w A g)^(order) = sum_k binom(order, k) w^(order - k) A g^(k) */
      PetscReal binom = order == 2 && k == 1 ? 2 : 1, c = binom * w[order - k];
      PetscReal dg[3] = {g[k], A * 2 * PETSC_PI * (t * g_theta[k] + g_rate[k]), A * g_theta[k]};

      s += c * A * g[k];
      for (PetscInt j = 0; j < 3 && dsdp; j++)
        if (h[j].param >= 0) dsdp[h[j].param] += c * dg[j];
      for (PetscInt j = 0; j < 2 && dsdp; j++)
        if (el->ramp[j].param >= 0) dsdp[el->ramp[j].param] += binom * dw[j][order - k] * A * g[k];
      for (PetscInt j = 0; j < 4 && dsdp && el->sweep.law; j++) {
        const MbsValue  *field = j < 2 ? &el->sweep.f[j] : &el->sweep.t[j - 2];
        const PetscReal *d     = dsweep + 3 * j;

        if (field->param >= 0) dsdp[field->param] += c * A * (g_theta[k] * d[0] + g_rate[k] * d[1] + g_accel[k] * d[2]);
      }
    }
  }
  return s;
}

/*@C
  MbsExcitationLaw - F(t) less a controller's u (the force with input: true, held over a sample) and dF/dA_i, dF/df_i,
  dF/dphi_i of the parameters among them, added into dFdp: the law of force and torque. Not collective.
@*/
PetscReal MbsExcitationLaw(MbsDescription desc, const MbsElement *el, PetscReal t, PetscReal dFdp[])
{
  return MbsTimeLaw(desc, el, t, 0, dFdp) - el->control;
}

static PetscErrorCode ForceForce(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld)
{
  PetscReal   *dFdp = MbsParameterScratch(desc), size, e[3], de[3];
  MbsVectorMap P;

  PetscFunctionBeginUser;
  if (el->turning) PetscFunctionReturn(MbsFollowerForce(desc, el, t, q, v, F, Jq, Jv, Jp, ld));
  if (Jp) PetscCall(PetscArrayzero(dFdp, desc->nparam));
  size = MbsExcitationLaw(desc, el, t, Jp ? dFdp : NULL);
  MbsMapPoint(desc, el->body[0], el->vector[0], &P);
  MbsJointAxisUnit(el, -1, e, de);
  if (F) MbsMapAddTranspose(desc, &P, -size, e, F, 1);
  for (PetscInt j = 0; j < desc->nparam && Jp; j++)
    if (dFdp[j] != 0) MbsMapAddTranspose(desc, &P, -dFdp[j], e, Jp + j * ld, 1);
  for (PetscInt n = 0; n < el->ngeometry && Jp; n++) { /* a point coordinate p_j (geometry.c): -d(P^T e F)/dp_j = -(dP/dp_j)^T e F */
    MbsVectorMap D;

    if (!MbsGeometryFirst(el, n)) continue;
    MbsGeometryPointDerivative(desc, el, 0, el->geometry[n].param, &D);
    MbsMapAddTranspose(desc, &D, -size, e, Jp + el->geometry[n].param * ld, 1);
  }
  for (PetscInt c = 0; c < 3 && Jp; c++) { /* a direction component p_j (geometry.c, "Axes"): -d(P^T e F)/dp_j = -P^T (de/dp_j) F */
    PetscInt j = MbsJointAxisFirst(el, c);

    if (j < 0) continue;
    MbsJointAxisUnit(el, j, e, de);
    MbsMapAddTranspose(desc, &P, -size, de, Jp + j * ld, 1);
  }
  PetscFunctionReturn(0);
}

/* The field of the law whose parameter is p_j among the taper's length and a sweep's frequencies and times, or NULL */
static const char *LawField(const MbsElement *el, PetscInt j)
{
  if (el->ramp[1].param == j) return "ramp";
  for (PetscInt k = 0; k < 2 && el->sweep.law; k++) {
    if (el->sweep.f[k].param == j) return "frequencies";
    if (el->sweep.t[k].param == j) return "sweep_time";
  }
  return NULL;
}

/* f = P^T e F(t, p) with P constant in q (a point coordinate p_j moves it, but dP/dp_j is constant too; a direction
   component moves e alone): no second derivative in q or v. The force a nodal input drives (design's) has no law: a
   parameter of its taper or sweep would be designed with a derivative that is zero whatever it is */
static PetscErrorCode ForceSecond(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal sq[], const PetscReal sv[], PetscInt j, PetscReal Dq[], PetscReal Dv[], PetscInt ld, PetscReal work[])
{
  const char *field = LawField(el, j);

  PetscFunctionBeginUser;
  if (el->turning) { /* frame: body (which takes no input): the follower force's (engine_order.c) */
    PetscCall(MbsFollowerForceSecond(desc, el, t, q, v, sq, sv, j, Dq, Dv, ld, work));
    PetscFunctionReturn(0);
  }
  PetscCheck(!(el->input && field), PETSC_COMM_SELF, PETSC_ERR_SUP, "Model file '%s', line %" PetscInt_FMT ", element '%s': parameter '%s' is in its %s, the time law of the force with input: true, which the designed input replaces (its derivative would be zero); design the other parameters, or give %s as numbers",
             desc->file, el->line, el->name, desc->param_info[j].name, field, field);
  PetscFunctionReturn(0);
}

static const MbsElementType Force = {MBS_ELEMENT_EXCITATION, ForceRead, ForceForce, NULL, NULL, PETSC_FALSE, MbsExcitationLaw, NULL, ForceSecond, PETSC_TRUE, NULL};

PetscErrorCode MbsElementGetType_Force(const MbsElementType **type)
{
  *type = &Force;
  return 0;
}
