/*
  Fourier and order analysis of a sampled output y(t_n), n = 0..N-1.

  Each coefficient j has a window [t_l, t_u] of length L, a window function eta and an angular
  frequency w:

    A_j = 2/L int eta(t) y(t) cos(w (t - t_p)) dt,    B_j = 2/L int eta(t) y(t) sin(w (t - t_p)) dt,

  with the phase origin t_p = t_l for the harmonics of a spectrum, and t_p = 0 (absolute time, engine4.md section
  10) for engine orders, whose phases then refer to the crank angle and agree between windows.

  Windows (a registry): rectangular eta = 1; Hann eta = g_c/2 [1 - cos(2 pi (t - t_l)/L)] with the
  amplitude correction g_c (default 2, so that a sinusoid on a bin keeps its amplitude).

  The integral uses the time integrator's own quadrature rule, nodes t_n with weights c_n (mbsid.h, MbsSignal:
  the step points of a theta method, the stages of a Runge-Kutta method), so

    A_j = 2/L sum_n c_n eta(t_n) y_n cos(w (t_n - t_p)),

  and dA_j/dy_n = 2/L c_n eta(t_n) cos(w (t_n - t_p)) is exactly what a discrete adjoint needs. For a theta method
  on a step [t_n, t_{n+1}] of length h_n, (1 - theta) h_n f(t_n) + theta h_n f(t_{n+1}) summed over the steps
  gives c_n = (1 - theta) h_n + theta h_{n-1} (theta = 1/2: the trapezoidal rule of Crank-Nicolson).

  Engine orders over a linear run-up n(t) = n0 + (n1 - n0)(t - t0)/(t1 - t0) [rev/s]: the speed n is
  reached at t_k = (n0 t1 - n1 t0 + n (t0 - t1))/(n0 - n1); its window is [t_k - 2/n, t_k + 2/n]
  (four revolutions) and order o has w = 2 pi o n.
*/
#include "core/coreimpl.h"

typedef PetscReal (*MbsWindowFn)(PetscReal, PetscReal);

static PetscFunctionList MbsWindowList              = NULL;
static PetscBool         MbsWindowRegisterAllCalled = PETSC_FALSE;

/* s = (t - t_l)/L in [0, 1] */
static PetscReal MbsWindowRectangular(PetscReal s, PetscReal gain)
{
  return 1.0;
}

static PetscReal MbsWindowHann(PetscReal s, PetscReal gain)
{
  return 0.5 * gain * (1.0 - PetscCosReal(2 * PETSC_PI * s));
}

/* Frees the registry at PetscFinalize() */
static PetscErrorCode MbsWindowFinalizePackage(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListDestroy(&MbsWindowList));
  MbsWindowRegisterAllCalled = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@C
  MbsWindowRegisterAll - Registers the window functions "rectangular" and "hann". Not collective.
@*/
PetscErrorCode MbsWindowRegisterAll(void)
{
  PetscFunctionBeginUser;
  if (MbsWindowRegisterAllCalled) PetscFunctionReturn(0);
  MbsWindowRegisterAllCalled = PETSC_TRUE;
  PetscCall(PetscRegisterFinalize(MbsWindowFinalizePackage));
  PetscCall(PetscFunctionListAdd(&MbsWindowList, "rectangular", MbsWindowRectangular));
  PetscCall(PetscFunctionListAdd(&MbsWindowList, "hann", MbsWindowHann));
  PetscFunctionReturn(0);
}

struct _p_MbsFourier {
  PetscInt     n, nalloc;
  PetscReal   *t_l, *t_u, *t_p, *omega, *A, *B;
  MbsWindowFn *window;
  PetscReal    gain; /* g_c of the Hann window */
  /* orders, when added: coefficient (s, o) of speed s and order o at index order_offset + s*norder + o */
  PetscInt   nspeed, norder, order_offset;
  PetscReal *speed_rpm, *order;
};

/*@C
  MbsFourierCreate - Creates an empty set of Fourier coefficients. Not collective.
@*/
PetscErrorCode MbsFourierCreate(MbsFourier *fourier)
{
  PetscFunctionBeginUser;
  PetscCall(MbsWindowRegisterAll());
  PetscCall(PetscNew(fourier));
  (*fourier)->gain = 2.0;
  PetscFunctionReturn(0);
}

PetscErrorCode MbsFourierDestroy(MbsFourier *fourier)
{
  PetscFunctionBeginUser;
  if (!*fourier) PetscFunctionReturn(0);
  PetscCall(PetscFree7((*fourier)->t_l, (*fourier)->t_u, (*fourier)->t_p, (*fourier)->omega, (*fourier)->A, (*fourier)->B, (*fourier)->window));
  PetscCall(PetscFree2((*fourier)->speed_rpm, (*fourier)->order));
  PetscCall(PetscFree(*fourier));
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierSetWindowGain - Sets the amplitude correction g_c of the Hann window (default 2). Not collective.
@*/
PetscErrorCode MbsFourierSetWindowGain(MbsFourier fourier, PetscReal gain)
{
  PetscFunctionBeginUser;
  PetscCheck(gain > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The window gain g_c must be positive, got %g (-window_gain)", (double)gain);
  fourier->gain = gain;
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsFourierGetWindowFunction_Private(const char window[], MbsWindowFn *fn)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListFind(MbsWindowList, window, fn));
  if (!*fn) {
    char known[256];

    PetscCall(MbsFunctionListNames(MbsWindowList, known, sizeof(known)));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown window '%s'; known windows: %s", window, known);
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierAddCoefficient - Adds one coefficient pair (A, B) at the given frequency [Hz] on the window [t_l, t_u] [s]. Not collective.
@*/
PetscErrorCode MbsFourierAddCoefficient(MbsFourier fourier, const char window[], PetscReal t_l, PetscReal t_u, PetscReal frequency)
{
  MbsWindowFn fn;
  PetscInt    j = fourier->n;

  PetscFunctionBeginUser;
  PetscCall(MbsFourierGetWindowFunction_Private(window, &fn));
  PetscCheck(t_u > t_l, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Fourier window [%g, %g] s is empty", (double)t_l, (double)t_u);
  PetscCheck(frequency >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Fourier frequency must be >= 0 Hz, got %g", (double)frequency);
  if (j == fourier->nalloc) {
    PetscInt     nalloc = PetscMax(16, 2 * fourier->nalloc);
    PetscReal   *t_l_new, *t_u_new, *t_p_new, *omega, *A, *B;
    MbsWindowFn *windows;

    PetscCall(PetscMalloc7(nalloc, &t_l_new, nalloc, &t_u_new, nalloc, &t_p_new, nalloc, &omega, nalloc, &A, nalloc, &B, nalloc, &windows));
    PetscCall(PetscArraycpy(t_l_new, fourier->t_l, j));
    PetscCall(PetscArraycpy(t_u_new, fourier->t_u, j));
    PetscCall(PetscArraycpy(t_p_new, fourier->t_p, j));
    PetscCall(PetscArraycpy(omega, fourier->omega, j));
    PetscCall(PetscArraycpy(windows, fourier->window, j));
    PetscCall(PetscFree7(fourier->t_l, fourier->t_u, fourier->t_p, fourier->omega, fourier->A, fourier->B, fourier->window));
    fourier->t_l    = t_l_new;
    fourier->t_u    = t_u_new;
    fourier->t_p    = t_p_new;
    fourier->omega  = omega;
    fourier->A      = A;
    fourier->B      = B;
    fourier->window = windows;
    fourier->nalloc = nalloc;
  }
  fourier->t_l[j]    = t_l;
  fourier->t_u[j]    = t_u;
  fourier->t_p[j]    = t_l;
  fourier->omega[j]  = 2 * PETSC_PI * frequency;
  fourier->window[j] = fn;
  fourier->A[j] = fourier->B[j] = 0;
  fourier->n++;
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierAddHarmonics - Adds the harmonics f_k = k/L, k >= 1, that lie in [f_lo, f_hi] [Hz], of the window [t_l, t_u]. Not collective.
@*/
PetscErrorCode MbsFourierAddHarmonics(MbsFourier fourier, const char window[], PetscReal t_l, PetscReal t_u, PetscReal f_lo, PetscReal f_hi)
{
  PetscReal L = t_u - t_l;
  PetscInt  k_lo, k_hi;

  PetscFunctionBeginUser;
  PetscCheck(f_hi >= f_lo && f_lo >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Frequency band [%g, %g] Hz must satisfy 0 <= lo <= hi", (double)f_lo, (double)f_hi);
  /* a band edge that is a harmonic up to rounding belongs to the band */
  k_lo = PetscMax(1, (PetscInt)PetscCeilReal(f_lo * L - 1e-9));
  k_hi = (PetscInt)PetscFloorReal(f_hi * L + 1e-9);
  for (PetscInt k = k_lo; k <= k_hi; k++) PetscCall(MbsFourierAddCoefficient(fourier, window, t_l, t_u, k / L));
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierWindowCentre - Time t_k [s] at which the linear run-up from n0 at t0 to n1 at t1 passes the speed n (any common speed unit). Not collective.
@*/
PetscErrorCode MbsFourierWindowCentre(PetscReal t0, PetscReal t1, PetscReal n0, PetscReal n1, PetscReal n, PetscReal *t_k)
{
  PetscFunctionBeginUser;
  PetscCheck(n0 != n1 && t1 != t0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The run-up (-ramp_rpm n0,n1 over -ramp_time t0,t1, needed by -orders) needs distinct speeds and times, got speed %g -> %g rpm over t = %g -> %g s", (double)n0, (double)n1, (double)t0, (double)t1);
  *t_k = (n0 * t1 - n1 * t0 + n * (t0 - t1)) / (n0 - n1);
  PetscFunctionReturn(0);
}

/* Records the speeds and orders of the order coefficients that follow */
static PetscErrorCode MbsFourierSetOrderLayout_Private(MbsFourier fourier, PetscInt norder, const PetscReal order[], PetscInt nspeed, const PetscReal speed_rpm[])
{
  PetscFunctionBeginUser;
  PetscCheck(!fourier->norder, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Orders were already added to this Fourier set");
  PetscCheck(norder > 0 && nspeed > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Order analysis needs at least one order and one speed");
  for (PetscInt s = 0; s < nspeed; s++) PetscCheck(speed_rpm[s] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Order analysis speed must be positive, got %g rpm", (double)speed_rpm[s]);
  for (PetscInt o = 0; o < norder; o++) PetscCheck(order[o] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Engine order must be positive, got %g", (double)order[o]);
  fourier->norder       = norder;
  fourier->nspeed       = nspeed;
  fourier->order_offset = fourier->n;
  PetscCall(PetscMalloc2(nspeed, &fourier->speed_rpm, norder, &fourier->order));
  PetscCall(PetscArraycpy(fourier->speed_rpm, speed_rpm, nspeed));
  PetscCall(PetscArraycpy(fourier->order, order, norder));
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierAddOrders - Adds engine orders on a linear run-up from speed n0 at t0 to n1 at t1 [rpm, s]: for every
  speed [rpm] (slowest index) and order, a window of four revolutions centred where the run-up passes the speed.
  Not collective; may be called once per set.
@*/
PetscErrorCode MbsFourierAddOrders(MbsFourier fourier, const char window[], PetscReal t0, PetscReal t1, PetscReal n0_rpm, PetscReal n1_rpm, PetscInt norder, const PetscReal order[], PetscInt nspeed, const PetscReal speed_rpm[])
{
  PetscFunctionBeginUser;
  PetscCall(MbsFourierSetOrderLayout_Private(fourier, norder, order, nspeed, speed_rpm));
  for (PetscInt s = 0; s < nspeed; s++) {
    PetscReal n = speed_rpm[s] / 60.0, t_k; /* rev/s */

    PetscCall(MbsFourierWindowCentre(t0, t1, n0_rpm, n1_rpm, speed_rpm[s], &t_k));
    for (PetscInt o = 0; o < norder; o++) PetscCall(MbsFourierAddCoefficient(fourier, window, t_k - 2.0 / n, t_k + 2.0 / n, order[o] * n));
  }
  for (PetscInt j = fourier->order_offset; j < fourier->n; j++) fourier->t_p[j] = 0;
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierAddStationaryOrders - Adds engine orders at one constant speed [rpm] on the window [t_l, t_u] [s]; the
  order layout has one speed. Not collective; may be called once per set.
@*/
PetscErrorCode MbsFourierAddStationaryOrders(MbsFourier fourier, const char window[], PetscReal t_l, PetscReal t_u, PetscReal speed_rpm, PetscInt norder, const PetscReal order[])
{
  PetscFunctionBeginUser;
  PetscCall(MbsFourierSetOrderLayout_Private(fourier, norder, order, 1, &speed_rpm));
  for (PetscInt o = 0; o < norder; o++) PetscCall(MbsFourierAddCoefficient(fourier, window, t_l, t_u, order[o] * speed_rpm / 60.0));
  for (PetscInt j = fourier->order_offset; j < fourier->n; j++) fourier->t_p[j] = 0;
  PetscFunctionReturn(0);
}

/* Parses "lo,hi,step" into the list lo, lo + step, ..., hi (the end included up to rounding). */
static PetscErrorCode MbsParseRange_Private(const char option[], const PetscReal range[3], PetscInt *n, PetscReal **values)
{
  PetscFunctionBeginUser;
  PetscCheck(range[2] > 0 && range[1] >= range[0], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s needs lo,hi,step with lo <= hi and step > 0, got %g,%g,%g", option, (double)range[0], (double)range[1], (double)range[2]);
  *n = (PetscInt)PetscFloorReal((range[1] - range[0]) / range[2] + 1e-9) + 1;
  PetscCall(PetscMalloc1(*n, values));
  for (PetscInt i = 0; i < *n; i++) (*values)[i] = range[0] + i * range[2];
  PetscFunctionReturn(0);
}

/*
  MbsFourierOptionsRead - The spectrum and order options shared by the commands, for a signal on [t0, tf] [s].
  Collective on PETSC_COMM_WORLD (options).
*/
PetscErrorCode MbsFourierOptionsRead(PetscReal t0, PetscReal tf, MbsFourierOptions *opts)
{
  PetscInt  ninterval = 2, nband = 2, nramp_rpm = 2, nramp_time = 2;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(opts, sizeof(*opts)));
  PetscCall(PetscStrncpy(opts->window, "rectangular", sizeof(opts->window)));
  PetscCall(PetscStrncpy(opts->order_window, "hann", sizeof(opts->order_window)));
  opts->interval[0] = opts->ramp_time[0] = t0;
  opts->interval[1] = opts->ramp_time[1] = tf;
  opts->band[1]                          = 10;
  opts->gain                             = 2;
  opts->norder                           = PETSC_STATIC_ARRAY_LENGTH(opts->order);
  opts->nspeed_range                     = 3;
  opts->window_cycles                    = 4;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Spectrum and order analysis", "MbsFourier");
  PetscCall(PetscOptionsFList("-spectrum_window", "Window of the spectrum", "MbsFourierAddHarmonics", MbsWindowList, opts->window, opts->window, sizeof(opts->window), NULL));
  PetscCall(PetscOptionsRealArray("-spectrum_interval", "Window t_l,t_u of the spectrum [s] (default: the simulated interval t0,tf)", "MbsFourierAddHarmonics", opts->interval, &ninterval, &set));
  PetscCheck(!set || ninterval == 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "-spectrum_interval needs two values t_l,t_u [s]");
  PetscCall(PetscOptionsRealArray("-band_hz", "Band of the spectrum, harmonics k/L (k >= 1) in lo,hi [Hz] (simulate: default 0,10; identify: default the measured range, or none with -orders)", "MbsFourierAddHarmonics", opts->band, &nband, &opts->band_set));
  PetscCheck(!opts->band_set || nband == 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "-band_hz needs two values lo,hi [Hz]");
  PetscCall(PetscOptionsReal("-window_gain", "Amplitude correction g_c of the Hann window", "MbsFourierSetWindowGain", opts->gain, &opts->gain, NULL));
  PetscCall(PetscOptionsRealArray("-orders", "Engine orders to analyse, e.g. 2,4,6,8 (default: none)", "MbsFourierAddOrders", opts->order, &opts->norder, &set));
  if (!set) opts->norder = 0;
  PetscCall(PetscOptionsRealArray("-speed_rpm", "Speeds of the order analysis [rpm]: simulate lo,hi,step; identify lo,hi selects the measured speeds (default: all)", "MbsFourierAddOrders", opts->speed_range, &opts->nspeed_range, &set));
  if (!set) opts->nspeed_range = 0;
  PetscCall(PetscOptionsRealArray("-ramp_rpm", "Run-up speeds n0,n1 [rpm] at -ramp_time (required with -orders)", "MbsFourierAddOrders", opts->ramp_rpm, &nramp_rpm, &set));
  PetscCheck(!set || nramp_rpm == 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "-ramp_rpm needs two values n0,n1 [rpm]");
  PetscCall(PetscOptionsRealArray("-ramp_time", "Run-up times t0,t1 [s] (default: the simulated interval)", "MbsFourierAddOrders", opts->ramp_time, &nramp_time, &set));
  PetscCheck(!set || nramp_time == 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "-ramp_time needs two values t0,t1 [s]");
  PetscCall(PetscOptionsFList("-order_window", "Window of the order analysis", "MbsFourierAddOrders", MbsWindowList, opts->order_window, opts->order_window, sizeof(opts->order_window), NULL));
  PetscCall(PetscOptionsReal("-stationary_rpm", "Constant engine speed [rpm]: the orders are analysed on the last -window_cycles revolutions (0: a run-up)", "MbsFourierAddStationaryOrders", opts->stationary_rpm, &opts->stationary_rpm, NULL));
  PetscCall(PetscOptionsReal("-window_cycles", "Revolutions in the window of a stationary order analysis", "MbsFourierAddStationaryOrders", opts->window_cycles, &opts->window_cycles, NULL));
  PetscOptionsEnd();
  PetscCheck(opts->stationary_rpm >= 0 && opts->window_cycles > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-stationary_rpm must be >= 0 and -window_cycles > 0, got %g and %g", (double)opts->stationary_rpm, (double)opts->window_cycles);
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierSetFromOptions - Adds the coefficients that the options ask for, for a signal on [t0, tf] [s]:
  the harmonics of -spectrum_window over -spectrum_interval in -band_hz, and with -orders the engine
  orders of a run-up at the speeds -speed_rpm lo,hi,step. Collective on PETSC_COMM_WORLD (options).
@*/
PetscErrorCode MbsFourierSetFromOptions(MbsFourier fourier, PetscReal t0, PetscReal tf)
{
  MbsFourierOptions opts;

  PetscFunctionBeginUser;
  PetscCall(MbsFourierOptionsRead(t0, tf, &opts));
  PetscCall(MbsFourierSetWindowGain(fourier, opts.gain));
  PetscCall(MbsFourierAddHarmonics(fourier, opts.window, opts.interval[0], opts.interval[1], opts.band[0], opts.band[1]));
  if (opts.norder && opts.stationary_rpm > 0) {
    PetscCall(MbsFourierAddStationaryOrders(fourier, opts.order_window, tf - opts.window_cycles * 60 / opts.stationary_rpm, tf, opts.stationary_rpm, opts.norder, opts.order));
  } else if (opts.norder) {
    PetscInt   nspeed;
    PetscReal *speed;

    PetscCheck(opts.nspeed_range == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-orders needs -speed_rpm lo,hi,step");
    PetscCall(MbsParseRange_Private("-speed_rpm", opts.speed_range, &nspeed, &speed));
    PetscCall(MbsFourierAddOrders(fourier, opts.order_window, opts.ramp_time[0], opts.ramp_time[1], opts.ramp_rpm[0], opts.ramp_rpm[1], opts.norder, opts.order, nspeed, speed));
    PetscCall(PetscFree(speed));
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsQuadratureWeights - Weights c_n = (1 - theta) h_n + theta h_{n-1} of the step points t_n in the quadrature rule
  of a theta method. Not collective.
@*/
PetscErrorCode MbsQuadratureWeights(PetscInt n, const PetscReal t[], PetscReal theta, PetscReal weight[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    PetscReal h_before = i > 0 ? t[i] - t[i - 1] : 0, h_after = i < n - 1 ? t[i + 1] - t[i] : 0;

    PetscCheck(h_after >= 0 && h_before >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Signal times must increase; t[%" PetscInt_FMT "] = %g", i, (double)t[i]);
    weight[i] = (1 - theta) * h_after + theta * h_before;
  }
  PetscFunctionReturn(0);
}

/* Window membership with a relative tolerance, so that a sample on a window edge up to rounding belongs to it */
static inline PetscReal MbsWindowTolerance(PetscReal L)
{
  return 1e-9 * L;
}

/* First index i with t[i] >= value (n when there is none); t sorted ascending. */
PetscInt MbsLowerBound(const PetscReal t[], PetscInt n, PetscReal value)
{
  PetscInt lo = 0, hi = n;

  while (lo < hi) {
    PetscInt mid = lo + (hi - lo) / 2;

    if (t[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The coefficients from quadrature nodes t (non-decreasing) with weights c on the simulated interval [t_a, t_b] */
static PetscErrorCode MbsFourierCompute_Private(MbsFourier fourier, PetscReal t_a, PetscReal t_b, PetscInt n, const PetscReal t[], const PetscReal c[], const PetscReal y[])
{
  PetscFunctionBeginUser;
  PetscCheck(n >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Fourier analysis needs at least 2 samples, got %" PetscInt_FMT, n);
  for (PetscInt i = 1; i < n; i++) PetscCheck(t[i] >= t[i - 1], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Quadrature nodes must not decrease: t[%" PetscInt_FMT "] = %.17g < t[%" PetscInt_FMT "] = %.17g", i, (double)t[i], i - 1, (double)t[i - 1]);
  for (PetscInt j = 0; j < fourier->n; j++) {
    PetscReal t_l = fourier->t_l[j], L = fourier->t_u[j] - t_l, w = fourier->omega[j], tol = MbsWindowTolerance(L), A = 0, B = 0;

    PetscCheck(t_l >= t_a - tol && fourier->t_u[j] <= t_b + tol, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Fourier window [%g, %g] s of coefficient %" PetscInt_FMT " (%g Hz) is not inside the simulated interval [%g, %g] s", (double)t_l,
               (double)fourier->t_u[j], j, (double)(w / (2 * PETSC_PI)), (double)t_a, (double)t_b);
    for (PetscInt i = MbsLowerBound(t, n, t_l - tol); i < n && t[i] <= fourier->t_u[j] + tol; i++) {
      PetscReal weight = c[i] * fourier->window[j]((t[i] - t_l) / L, fourier->gain) * y[i], phase = w * (t[i] - fourier->t_p[j]);

      A += weight * PetscCosReal(phase);
      B += weight * PetscSinReal(phase);
    }
    fourier->A[j] = 2.0 / L * A;
    fourier->B[j] = 2.0 / L * B;
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierCompute - Computes every coefficient from samples (t_n, y_n) with quadrature weights c_n, t non-decreasing;
  each window must lie inside [t_0, t_{N-1}]. Not collective.
@*/
PetscErrorCode MbsFourierCompute(MbsFourier fourier, PetscInt n, const PetscReal t[], const PetscReal c[], const PetscReal y[])
{
  PetscFunctionBeginUser;
  PetscCheck(n >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Fourier analysis needs at least 2 samples, got %" PetscInt_FMT, n);
  PetscCall(MbsFourierCompute_Private(fourier, t[0], t[n - 1], n, t, c, y));
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierComputeSignal - Computes every coefficient of a simulated output with the integrator's own quadrature rule
  (the signal's nodes); each window must lie inside the simulated interval. Not collective.
@*/
PetscErrorCode MbsFourierComputeSignal(MbsFourier fourier, const MbsSignal *signal)
{
  PetscFunctionBeginUser;
  PetscCheck(signal->n >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Fourier analysis needs a signal of at least one step, got %" PetscInt_FMT " samples", signal->n);
  PetscCall(MbsFourierCompute_Private(fourier, signal->t[0], signal->t[signal->n - 1], signal->nq, signal->tq, signal->wq, signal->yq));
  PetscFunctionReturn(0);
}

/* "spectrum line 12.5 Hz" or "order 4 at 3000 rpm (200 Hz)", for messages */
static PetscErrorCode MbsFourierDescribe_Private(MbsFourier fourier, PetscInt j, char text[], size_t size)
{
  PetscReal frequency = fourier->omega[j] / (2 * PETSC_PI);

  PetscFunctionBeginUser;
  if (fourier->norder && j >= fourier->order_offset) {
    PetscInt s = (j - fourier->order_offset) / fourier->norder, o = (j - fourier->order_offset) % fourier->norder;

    PetscCall(PetscSNPrintf(text, size, "order %g at %g rpm (%g Hz)", (double)fourier->order[o], (double)fourier->speed_rpm[s], (double)frequency));
  } else PetscCall(PetscSNPrintf(text, size, "spectrum line %g Hz", (double)frequency));
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierCheckSignal - Raises an error, naming source (the measurement or the options the coefficients come from),
  for the first coefficient that the signal cannot give: its window reaches outside the simulated interval, or its
  frequency is not below 1/(2h), h the longest step within its window, where the quadrature only sees an alias. Not
  collective.
@*/
PetscErrorCode MbsFourierCheckSignal(MbsFourier fourier, const MbsSignal *signal, const char source[])
{
  const PetscReal *t = signal->t;
  PetscInt         n = signal->n;
  PetscReal        h = 0;
  char             coefficient[128];

  PetscFunctionBeginUser;
  PetscCheck(n >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Fourier analysis needs a signal of at least one step, got %" PetscInt_FMT " samples", n);
  for (PetscInt j = 0; j < fourier->n; j++) {
    PetscReal t_l = fourier->t_l[j], t_u = fourier->t_u[j], tol = MbsWindowTolerance(t_u - t_l);

    if (t_l < t[0] - tol || t_u > t[n - 1] + tol) {
      PetscCall(MbsFourierDescribe_Private(fourier, j, coefficient, sizeof(coefficient)));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: %s needs the window [%g, %g] s, which is not inside the simulated interval [%g, %g] s; leave it out (-band_hz, -speed_rpm) or simulate longer (-time_span, -ramp_rpm, -ramp_time)", source, coefficient, (double)t_l, (double)t_u, (double)t[0], (double)t[n - 1]);
    }
    if (j == 0 || t_l != fourier->t_l[j - 1] || t_u != fourier->t_u[j - 1]) { /* the lines of a spectrum share their window */
      h = 0;
      for (PetscInt i = PetscMax(MbsLowerBound(t, n, t_l) - 1, 0); i < n - 1 && t[i] < t_u; i++) h = PetscMax(h, t[i + 1] - t[i]);
    }
    if (fourier->omega[j] / (2 * PETSC_PI) * 2 * h >= 1 - 1e-9) { /* at the Nyquist frequency itself the sine is lost */
      PetscCall(MbsFourierDescribe_Private(fourier, j, coefficient, sizeof(coefficient)));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: %s lies at or above the Nyquist frequency %g Hz of the simulation, whose steps reach %g s in its window; leave it out (-band_hz, -orders, -speed_rpm) or take smaller steps (-ts_dt, -ts_adapt_dt_max)", source, coefficient, (double)(0.5 / h), (double)h);
    }
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierAdjointDensity - G(t) = sum_j 2/L_j eta_j(t) (alpha_j cos w_j tau + beta_j sin w_j tau) over the windows
  that contain t, so that for J(A, B) with alpha = dJ/dA, beta = dJ/dB the derivative with respect to a sample is
  dJ/dy_n = c_n G(t_n), c_n the sample's quadrature weight. Not collective.
@*/
PetscErrorCode MbsFourierAdjointDensity(MbsFourier fourier, const PetscReal alpha[], const PetscReal beta[], PetscReal t, PetscReal *G)
{
  PetscFunctionBeginUser;
  *G = 0;
  for (PetscInt j = 0; j < fourier->n; j++) {
    PetscReal t_l = fourier->t_l[j], L = fourier->t_u[j] - t_l, tol = MbsWindowTolerance(L), phase = fourier->omega[j] * (t - fourier->t_p[j]);

    if (t < t_l - tol || t > fourier->t_u[j] + tol || (alpha[j] == 0 && beta[j] == 0)) continue;
    *G += 2.0 / L * fourier->window[j]((t - t_l) / L, fourier->gain) * (alpha[j] * PetscCosReal(phase) + beta[j] * PetscSinReal(phase));
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierAdjointDensitySamples - MbsFourierAdjointDensity() at every sample time t[0..n-1], in one pass over each
  coefficient's window like MbsFourierCompute(). Not collective.
@*/
PetscErrorCode MbsFourierAdjointDensitySamples(MbsFourier fourier, const PetscReal alpha[], const PetscReal beta[], PetscInt n, const PetscReal t[], PetscReal G[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(G, n));
  for (PetscInt j = 0; j < fourier->n; j++) {
    PetscReal t_l = fourier->t_l[j], L = fourier->t_u[j] - t_l, w = fourier->omega[j], tol = MbsWindowTolerance(L);

    if (alpha[j] == 0 && beta[j] == 0) continue;
    for (PetscInt i = MbsLowerBound(t, n, t_l - tol); i < n && t[i] <= fourier->t_u[j] + tol; i++) {
      PetscReal phase = w * (t[i] - fourier->t_p[j]);

      G[i] += 2.0 / L * fourier->window[j]((t[i] - t_l) / L, fourier->gain) * (alpha[j] * PetscCosReal(phase) + beta[j] * PetscSinReal(phase));
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MbsFourierGetNumCoefficients(MbsFourier fourier, PetscInt *n)
{
  PetscFunctionBeginUser;
  *n = fourier->n;
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierGetCoefficients - The coefficients A_j, B_j of the last MbsFourierCompute(). Not collective.
@*/
PetscErrorCode MbsFourierGetCoefficients(MbsFourier fourier, const PetscReal **A, const PetscReal **B)
{
  PetscFunctionBeginUser;
  if (A) *A = fourier->A;
  if (B) *B = fourier->B;
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierGetFrequencies - Angular frequencies w_j [rad/s] of the coefficients. Not collective.
@*/
PetscErrorCode MbsFourierGetFrequencies(MbsFourier fourier, const PetscReal **omega)
{
  PetscFunctionBeginUser;
  *omega = fourier->omega;
  PetscFunctionReturn(0);
}

PetscErrorCode MbsFourierGetWindow(MbsFourier fourier, PetscInt j, PetscReal *t_l, PetscReal *t_u)
{
  PetscFunctionBeginUser;
  PetscCheck(j >= 0 && j < fourier->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Coefficient %" PetscInt_FMT " out of range [0, %" PetscInt_FMT ")", j, fourier->n);
  *t_l = fourier->t_l[j];
  *t_u = fourier->t_u[j];
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierGetOrderLayout - Speeds [rpm] and orders of the order analysis (nspeed = 0 without one); coefficient
  (s, o) is at index offset + s*norder + o. Not collective.
@*/
PetscErrorCode MbsFourierGetOrderLayout(MbsFourier fourier, PetscInt *offset, PetscInt *nspeed, const PetscReal **speed_rpm, PetscInt *norder, const PetscReal **order)
{
  PetscFunctionBeginUser;
  if (offset) *offset = fourier->order_offset;
  *nspeed = fourier->nspeed;
  *norder = fourier->norder;
  if (speed_rpm) *speed_rpm = fourier->speed_rpm;
  if (order) *order = fourier->order;
  PetscFunctionReturn(0);
}
