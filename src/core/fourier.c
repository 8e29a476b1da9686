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
  the step points of an end-point theta method, the stages of a one-stage theta or a Runge-Kutta method), so

    A_j = 2/L sum_n c_n f_j(t_n) eta(t_n) y_n cos(w (t_n - t_p)),

  and dA_j/dy_n = 2/L c_n f_j(t_n) eta(t_n) cos(w (t_n - t_p)) is exactly what a discrete adjoint needs. For a theta
  method on a step [t_n, t_{n+1}] of length h_n, (1 - theta) h_n f(t_n) + theta h_n f(t_{n+1}) summed over the steps
  gives c_n = (1 - theta) h_n + theta h_{n-1} (theta = 1/2: the trapezoidal rule of Crank-Nicolson). The window
  factor f_j is 1 inside the window and 0 outside, but where an edge of the window cuts a step, the step's share of a
  node's weight counts by the fraction of the step inside the window (MbsFourierEdges_Private): a rectangular window
  inside the simulated interval stays second-order accurate wherever its edges fall.

  Engine orders over a linear run-up n(t) = n0 + (n1 - n0)(t - t0)/(t1 - t0) [rev/s] in the time domain (engine4.md
  section 10): the speed n is reached at t_k = (n0 t1 - n1 t0 + n (t0 - t1))/(n0 - n1); its window is
  [t_k - 2/n, t_k + 2/n] (four revolutions) and order o has w = 2 pi o n.

  Engine orders in the angle domain (-order_domain angle; the default for a measured speed, -speed_profile), for
  speeds that are not a straight line: the window and the kernel follow the crank angle phi(t) of the speed profile,

    A = 2/Theta int eta((phi - theta_l)/Theta) y cos(o phi) dphi = 2/Theta int eta y cos(o phi(t)) phi'(t) dt,

  over the four revolutions theta_l = phi(t_k) - 4 pi ... theta_u = phi(t_k) + 4 pi, Theta = 8 pi, centred where the
  speed averaged over one revolution, 60/(time of the revolution centred there), passes n: a speed ripple at an
  engine order averages out over a revolution, so the centre is unique on a run-up with ripple. An order of a
  tracked signal then falls on a bin however the speed varies within the window (the time domain smears it by the
  change of speed in the window), and the measured and simulated outputs are windowed alike when both use the same
  profile (mbsid track writes the one derived from the tachometer into its result). This is angle-domain
  resampling without the resampling: the quadrature stays on the time nodes of the samples or of the integrator,
  so the adjoint's forcing keeps its form, and no interpolation of the signal enters the measurement.
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

const char *const MbsOrderDomains[] = {"time", "angle", "MbsOrderDomain", "MBS_ORDER_DOMAIN_", NULL};

/* The window of a coefficient: in time [t_l, t_u] with phase origin t_p, or in crank angle [theta_l, theta_u] */
typedef struct {
  PetscReal   t_l, t_u, t_p;
  PetscReal   order; /* > 0: the angle domain, kernel of order * phi(t) */
  PetscReal   theta_l, theta_u;
  MbsWindowFn window;
} MbsFourierLine;

/* Coefficients first .. first + count - 1, w_{first+m} = w_first + m dw up to rounding; on the last signal, the nodes
   lo <= t <= hi may carry weight in their window, and edge_f[edge .. edge + nedge - 1] are the factors of the nodes at
   times edge_t[...] where it cuts a step (MbsFourierEdges_Private) */
typedef struct {
  PetscInt  first, count;
  PetscReal dw;
  PetscInt  edge, nedge;
  PetscReal lo, hi;
} MbsFourierRun;

struct _p_MbsFourier {
  PetscInt        n, nalloc;
  MbsFourierLine *line;
  PetscReal      *omega, *A, *B; /* omega of the angle domain: its highest value in the window, for messages and the Nyquist check */
  MbsSpeedProfile angle;         /* the crank angle of angle-domain coefficients */
  PetscReal       gain;          /* g_c of the Hann window */
  /* orders, when added: coefficient (s, o) of speed s and order o at index order_offset + s*norder + o */
  PetscInt   nspeed, norder, order_offset;
  PetscReal *speed_rpm, *order;
  /* runs of consecutive coefficients with one time window and equally spaced frequencies (the lines of a spectrum, the
     orders at a speed), built for the first n_runs_of coefficients; kc, ks: their kernels at one time */
  PetscInt       nrun, n_runs_of;
  MbsFourierRun *run;
  PetscReal     *kc, *ks;
  /* the edge factors of the runs' windows, and the cumulative weight of the nodes, on the last signal */
  PetscInt   nedge, nedge_alloc, ncumulative_alloc;
  PetscReal *edge_t, *edge_f, *cumulative;
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
  PetscCall(PetscFree4((*fourier)->line, (*fourier)->omega, (*fourier)->A, (*fourier)->B));
  PetscCall(PetscFree2((*fourier)->speed_rpm, (*fourier)->order));
  PetscCall(PetscFree3((*fourier)->run, (*fourier)->kc, (*fourier)->ks));
  PetscCall(PetscFree2((*fourier)->edge_t, (*fourier)->edge_f));
  PetscCall(PetscFree((*fourier)->cumulative));
  PetscCall(MbsSpeedProfileReset(&(*fourier)->angle));
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

/* The window function of a name; option (may be NULL) names the option the name was given with */
static PetscErrorCode MbsFourierGetWindowFunction_Private(const char option[], const char window[], MbsWindowFn *fn)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListFind(MbsWindowList, window, fn));
  if (!*fn) {
    char known[256];

    PetscCall(MbsFunctionListNames(MbsWindowList, known, sizeof(known)));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown window '%s'%s%s; known windows: %s", window, option ? " given by " : "", option ? option : "", known);
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
  PetscCall(MbsFourierGetWindowFunction_Private(NULL, window, &fn));
  PetscCheck(t_u > t_l, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Fourier window [%g, %g] s is empty", (double)t_l, (double)t_u);
  PetscCheck(frequency >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Fourier frequency must be >= 0 Hz, got %g", (double)frequency);
  if (j == fourier->nalloc) {
    PetscInt        nalloc = PetscMax(16, 2 * fourier->nalloc);
    MbsFourierLine *line;
    PetscReal      *omega, *A, *B;

    PetscCall(PetscMalloc4(nalloc, &line, nalloc, &omega, nalloc, &A, nalloc, &B));
    PetscCall(PetscArraycpy(line, fourier->line, j));
    PetscCall(PetscArraycpy(omega, fourier->omega, j));
    PetscCall(PetscFree4(fourier->line, fourier->omega, fourier->A, fourier->B));
    fourier->line   = line;
    fourier->omega  = omega;
    fourier->A      = A;
    fourier->B      = B;
    fourier->nalloc = nalloc;
  }
  fourier->line[j]  = (MbsFourierLine){.t_l = t_l, .t_u = t_u, .t_p = t_l, .window = fn};
  fourier->omega[j] = 2 * PETSC_PI * frequency;
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

/*
  The speed averaged over the revolution centred at t, 60/(t(phi(t) + pi) - t(phi(t) - pi)) [rpm]: an engine-order
  ripple of the speed averages out over it.
*/
static PetscErrorCode MbsRevolutionMeanSpeed_Private(const MbsSpeedProfile *speed, PetscReal t, PetscReal *n_mean)
{
  PetscReal phi, n, t_before, t_after;

  PetscFunctionBeginUser;
  MbsSpeedProfileAngle(speed, t, &phi, &n);
  PetscCall(MbsSpeedProfileTime(speed, phi - PETSC_PI, &t_before));
  PetscCall(MbsSpeedProfileTime(speed, phi + PETSC_PI, &t_after));
  *n_mean = 60 / (t_after - t_before);
  PetscFunctionReturn(0);
}

/* The first time at which the revolution-mean speed passes n [rpm]; the search walks in quarter revolutions */
static PetscErrorCode MbsRevolutionCentre_Private(const MbsSpeedProfile *speed, PetscReal n_rpm, PetscReal *t_k)
{
  PetscReal t_start, t_end, t, g, n, phi, n_mean;

  PetscFunctionBeginUser;
  *t_k = 0;
  if (speed->ntable) {
    t_start = speed->table_t[0];
    t_end   = speed->table_t[speed->ntable - 1];
  } else {
    PetscReal margin = 60 / PetscMin(speed->ramp_rpm[0], speed->ramp_rpm[1]);

    t_start = speed->ramp_time[0] - margin;
    t_end   = speed->ramp_time[1] + margin;
  }
  PetscCall(MbsRevolutionMeanSpeed_Private(speed, t_start, &n_mean));
  g = n_mean - n_rpm;
  for (t = t_start; t < t_end && g != 0;) {
    PetscReal t_next, g_next;

    MbsSpeedProfileAngle(speed, t, &phi, &n);
    t_next = PetscMin(t + 15 / n, t_end);
    PetscCall(MbsRevolutionMeanSpeed_Private(speed, t_next, &n_mean));
    g_next = n_mean - n_rpm;
    if ((g < 0) != (g_next < 0) || g_next == 0) {
      PetscReal lo = t, hi = t_next;

      for (PetscInt k = 0; k < 100 && hi - lo > 4 * PETSC_MACHINE_EPSILON * PetscMax(1, PetscAbsReal(hi)); k++) {
        PetscReal mid = 0.5 * (lo + hi), g_mid;

        PetscCall(MbsRevolutionMeanSpeed_Private(speed, mid, &n_mean));
        g_mid = n_mean - n_rpm;
        if ((g_mid < 0) == (g < 0) && g_mid != 0) lo = mid;
        else hi = mid;
      }
      *t_k = 0.5 * (lo + hi);
      PetscFunctionReturn(0);
    }
    t = t_next;
    g = g_next;
  }
  PetscCheck(g == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Order analysis at %g rpm: the speed of %s, averaged over a revolution, does not pass it between t = %g and %g s", (double)n_rpm, speed->ntable ? speed->table_path : "the run-up -ramp_rpm", (double)t_start, (double)t_end);
  *t_k = t_start; /* the speed equals n all along */
  PetscFunctionReturn(0);
}

/* The window of the order analysis at speed n [rpm]: times t_l, t_u and, in the angle domain, crank angles theta_l, theta_u */
static PetscErrorCode MbsFourierOrderWindow_Private(const MbsSpeedProfile *speed, MbsOrderDomain domain, PetscReal n_rpm, PetscReal *t_l, PetscReal *t_u, PetscReal *theta_l, PetscReal *theta_u)
{
  PetscReal t_k, phi_k, n;

  PetscFunctionBeginUser;
  if (domain == MBS_ORDER_DOMAIN_TIME) {
    PetscCheck(!speed->ntable, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-order_domain time places its windows on the linear run-up -ramp_rpm; the measured speed %s needs -order_domain angle", speed->table_path);
    PetscCall(MbsFourierWindowCentre(speed->ramp_time[0], speed->ramp_time[1], speed->ramp_rpm[0], speed->ramp_rpm[1], n_rpm, &t_k));
    *t_l     = t_k - 2 * 60 / n_rpm;
    *t_u     = t_k + 2 * 60 / n_rpm;
    *theta_l = *theta_u = 0;
    PetscFunctionReturn(0);
  }
  PetscCheck(speed->ntable || (speed->ramp_rpm[0] > 0 && speed->ramp_rpm[1] > 0 && speed->ramp_rpm[0] != speed->ramp_rpm[1]), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The order analysis needs a run-up with distinct positive speeds (-ramp_rpm n0,n1 -ramp_time t0,t1) or a measured speed (-speed_profile), got %g -> %g rpm",
             (double)speed->ramp_rpm[0], (double)speed->ramp_rpm[1]);
  PetscCall(MbsRevolutionCentre_Private(speed, n_rpm, &t_k));
  MbsSpeedProfileAngle(speed, t_k, &phi_k, &n);
  *theta_l = phi_k - 4 * PETSC_PI;
  *theta_u = phi_k + 4 * PETSC_PI;
  PetscCall(MbsSpeedProfileTime(speed, *theta_l, t_l));
  PetscCall(MbsSpeedProfileTime(speed, *theta_u, t_u));
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierOrderWindow - The times t_l, t_u [s] of the window of the order analysis at the speed n [rpm] of the
  profile, in the time or the angle domain. Not collective.
@*/
PetscErrorCode MbsFourierOrderWindow(const MbsSpeedProfile *speed, MbsOrderDomain domain, PetscReal n_rpm, PetscReal *t_l, PetscReal *t_u)
{
  PetscReal theta_l, theta_u;

  PetscFunctionBeginUser;
  PetscCall(MbsFourierOrderWindow_Private(speed, domain, n_rpm, t_l, t_u, &theta_l, &theta_u));
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierAddOrders - Adds engine orders of a run-up: for every speed [rpm] (slowest index) and order, a window of
  four revolutions centred where the run-up passes the speed, in the time domain (a linear run-up, engine4.md
  section 10) or the angle domain (any speed profile). Not collective; may be called once per set.
@*/
PetscErrorCode MbsFourierAddOrders(MbsFourier fourier, const char window[], const MbsSpeedProfile *speed, MbsOrderDomain domain, PetscInt norder, const PetscReal order[], PetscInt nspeed, const PetscReal speed_rpm[])
{
  PetscFunctionBeginUser;
  PetscCall(MbsFourierSetOrderLayout_Private(fourier, norder, order, nspeed, speed_rpm));
  if (domain == MBS_ORDER_DOMAIN_ANGLE) PetscCall(MbsSpeedProfileCopy(speed, &fourier->angle));
  for (PetscInt s = 0; s < nspeed; s++) {
    PetscReal t_l, t_u, theta_l, theta_u, n_max = speed_rpm[s];

    PetscCall(MbsFourierOrderWindow_Private(speed, domain, speed_rpm[s], &t_l, &t_u, &theta_l, &theta_u));
    if (domain == MBS_ORDER_DOMAIN_ANGLE) /* the highest speed in the window, for the Nyquist check: at 65 points, and the table's rows */
      for (PetscInt i = 0; i <= 64; i++) {
        PetscReal phi, n;

        MbsSpeedProfileAngle(speed, t_l + (t_u - t_l) * i / 64, &phi, &n);
        n_max = PetscMax(n_max, n);
      }
    for (PetscInt i = speed->ntable ? MbsLowerBound(speed->table_t, speed->ntable, t_l) : 0; domain == MBS_ORDER_DOMAIN_ANGLE && i < speed->ntable && speed->table_t[i] <= t_u; i++) n_max = PetscMax(n_max, speed->table_rpm[i]);
    for (PetscInt o = 0; o < norder; o++) {
      PetscInt j = fourier->n;

      PetscCall(MbsFourierAddCoefficient(fourier, window, t_l, t_u, order[o] * n_max / 60));
      fourier->line[j].t_p = 0;
      if (domain == MBS_ORDER_DOMAIN_ANGLE) {
        fourier->line[j].order   = order[o];
        fourier->line[j].theta_l = theta_l;
        fourier->line[j].theta_u = theta_u;
      }
    }
  }
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
  for (PetscInt j = fourier->order_offset; j < fourier->n; j++) fourier->line[j].t_p = 0;
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierGetOrderDomain - The domain of the order analysis: "angle" when its windows follow the crank angle, else "time". Not collective.
@*/
PetscErrorCode MbsFourierGetOrderDomain(MbsFourier fourier, const char **domain)
{
  PetscFunctionBeginUser;
  *domain = MbsOrderDomains[fourier->norder && fourier->line[fourier->order_offset].order > 0 ? MBS_ORDER_DOMAIN_ANGLE : MBS_ORDER_DOMAIN_TIME];
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
  MbsFourierOptionsRead - The spectrum and order options shared by the commands, for a signal on [t0, tf] [s]. The
  orders follow speed, the engine speed of the model (MbsModelGetSpeedProfile), which its options read; NULL: a model
  without one, or none, and the options -ramp_rpm, -ramp_time, -stationary_rpm, -speed_profile are read here (ramp
  times default t0, tf). Collective on PETSC_COMM_WORLD (options).
*/
PetscErrorCode MbsFourierOptionsRead(PetscReal t0, PetscReal tf, const MbsSpeedProfile *speed, MbsFourierOptions *opts)
{
  PetscInt  ninterval = 2, nband = 2;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(MbsWindowRegisterAll()); /* -help lists the windows, and a misspelt one is refused here */
  PetscCall(PetscMemzero(opts, sizeof(*opts)));
  PetscCall(PetscStrncpy(opts->window, "rectangular", sizeof(opts->window)));
  PetscCall(PetscStrncpy(opts->order_window, "hann", sizeof(opts->order_window)));
  opts->interval[0] = opts->speed.ramp_time[0] = t0;
  opts->interval[1] = opts->speed.ramp_time[1] = tf;
  opts->band[1]                                = 10;
  opts->gain                                   = 2;
  opts->norder                                 = PETSC_STATIC_ARRAY_LENGTH(opts->order);
  opts->nspeed_range                           = 3;
  opts->window_cycles                          = 4;
  MbsOptionsBegin(PETSC_COMM_WORLD, NULL, "Spectrum and order analysis", "MbsFourier");
  PetscCall(PetscOptionsFList("-spectrum_window", "Window of the spectrum", "MbsFourierAddHarmonics", MbsWindowList, opts->window, opts->window, sizeof(opts->window), NULL));
  PetscCall(MbsOptionsRealArray(PetscOptionsObject, "-spectrum_interval", "Window t_l,t_u of the spectrum [s] (default: the simulated interval t0,tf)", "MbsFourierAddHarmonics", 2, opts->interval, &ninterval, &set));
  PetscCheck(!set || ninterval == 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "-spectrum_interval needs two values t_l,t_u [s]");
  PetscCall(MbsOptionsRealArray(PetscOptionsObject, "-band_hz", "Band of the spectrum, harmonics k/L (k >= 1) in lo,hi [Hz] (simulate: default 0,10; identify: default the measured range, or none with -orders)", "MbsFourierAddHarmonics", 2, opts->band, &nband,
                                &opts->band_set));
  PetscCheck(!opts->band_set || nband == 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "-band_hz needs two values lo,hi [Hz]");
  PetscCall(PetscOptionsReal("-window_gain", "Amplitude correction g_c of the Hann window", "MbsFourierSetWindowGain", opts->gain, &opts->gain, NULL));
  PetscCall(MbsOptionsRealArray(PetscOptionsObject, "-orders", "Engine orders to analyse, e.g. 2,4,6,8 (default: none)", "MbsFourierAddOrders", 0, opts->order, &opts->norder, &set));
  if (!set) opts->norder = 0;
  PetscCall(MbsOptionsRealArray(PetscOptionsObject, "-speed_rpm", "Speeds of the order analysis [rpm]: simulate lo,hi,step; identify lo,hi selects the measured speeds (default: all)", "MbsFourierAddOrders", 0, opts->speed_range, &opts->nspeed_range, &set));
  if (!set) opts->nspeed_range = 0;
  /* the speed of the run-up that places the order windows: the model's, whose options are the same, read once */
  if (speed) PetscCall(MbsSpeedProfileCopy(speed, &opts->speed));
  else PetscCall(MbsSpeedProfileSetFromOptions(PetscOptionsObject, &opts->speed));
  opts->domain = opts->speed.ntable ? MBS_ORDER_DOMAIN_ANGLE : MBS_ORDER_DOMAIN_TIME;
  PetscCall(PetscOptionsEnum("-order_domain", "Windows and kernels of the order analysis follow the time (a linear run-up) or the crank angle of the speed profile (default: angle with -speed_profile, else time)", "MbsFourierAddOrders", MbsOrderDomains,
                             (PetscEnum)opts->domain, (PetscEnum *)&opts->domain, NULL));
  PetscCall(PetscOptionsFList("-order_window", "Window of the order analysis", "MbsFourierAddOrders", MbsWindowList, opts->order_window, opts->order_window, sizeof(opts->order_window), NULL));
  PetscCall(PetscOptionsReal("-window_cycles", "Revolutions in the window of a stationary order analysis (-stationary_rpm)", "MbsFourierAddStationaryOrders", opts->window_cycles, &opts->window_cycles, NULL));
  MbsOptionsEnd();
  {
    MbsWindowFn fn;

    PetscCall(MbsFourierGetWindowFunction_Private("-spectrum_window", opts->window, &fn));
    PetscCall(MbsFourierGetWindowFunction_Private("-order_window", opts->order_window, &fn));
  }
  PetscCheck(opts->window_cycles > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-window_cycles must be positive, got %g", (double)opts->window_cycles);
  /* the measurement schema's /orders/order: what mbsid writes, its own reader must take */
  for (PetscInt o = 0; o < opts->norder; o++)
    PetscCheck(opts->order[o] > 0 && !PetscIsInfOrNanReal(opts->order[o]) && (o == 0 || opts->order[o] > opts->order[o - 1]), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-orders: order %g (number %" PetscInt_FMT ") %s; the orders must be positive, finite and increase strictly",
               (double)opts->order[o], o + 1,
               o > 0 && opts->order[o] == opts->order[o - 1]  ? "is given twice"
               : o > 0 && opts->order[o] < opts->order[o - 1] ? "comes after a larger one"
                                                              : "is not a positive finite number");
  PetscCheck(!(opts->speed.ntable && opts->domain == MBS_ORDER_DOMAIN_TIME), PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-order_domain time places its windows on the linear run-up -ramp_rpm; the measured speed -speed_profile %s needs -order_domain angle",
             opts->speed.table_path);
  PetscFunctionReturn(0);
}

/*
  MbsFourierOptionsReset - Frees what MbsFourierOptionsRead() allocated (a measured speed table). Not collective.
*/
PetscErrorCode MbsFourierOptionsReset(MbsFourierOptions *opts)
{
  PetscFunctionBeginUser;
  PetscCall(MbsSpeedProfileReset(&opts->speed));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsFourierAddFromOptions_Private(MbsFourier fourier, PetscReal tf, const MbsFourierOptions *opts)
{
  PetscFunctionBeginUser;
  PetscCall(MbsFourierSetWindowGain(fourier, opts->gain));
  PetscCall(MbsFourierAddHarmonics(fourier, opts->window, opts->interval[0], opts->interval[1], opts->band[0], opts->band[1]));
  if (opts->norder && opts->speed.stationary_rpm > 0) {
    PetscCall(MbsFourierAddStationaryOrders(fourier, opts->order_window, tf - opts->window_cycles * 60 / opts->speed.stationary_rpm, tf, opts->speed.stationary_rpm, opts->norder, opts->order));
  } else if (opts->norder) {
    PetscInt   nspeed;
    PetscReal *speed;

    PetscCheck(opts->nspeed_range == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-orders needs -speed_rpm lo,hi,step");
    PetscCall(MbsParseRange_Private("-speed_rpm", opts->speed_range, &nspeed, &speed));
    MbsCallCleanup(MbsFourierAddOrders(fourier, opts->order_window, &opts->speed, opts->domain, opts->norder, opts->order, nspeed, speed), PetscFree(speed));
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierSetFromOptions - Adds the coefficients that the options ask for, for the model's output on its time span
  [t0, tf] [s]: the harmonics of -spectrum_window over -spectrum_interval in -band_hz, and with -orders the engine
  orders of the model's run-up (or that of the options) at the speeds -speed_rpm lo,hi,step. Collective on
  PETSC_COMM_WORLD (options).
@*/
PetscErrorCode MbsFourierSetFromOptions(MbsFourier fourier, MbsModel model)
{
  MbsFourierOptions      opts;
  const MbsSpeedProfile *speed;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSpeedProfile(model, &speed));
  PetscCall(MbsFourierOptionsRead(model->t0, model->tf, speed, &opts));
  MbsCallCleanup(MbsFourierAddFromOptions_Private(fourier, model->tf, &opts), MbsFourierOptionsReset(&opts));
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

/* Two node times closer than this are one: the adjoint computes a node's time by another sum than the forward pass,
   and a Runge-Kutta stage at c = 1 falls on the next step's stage at c = 0, both up to a few ulps */
static inline PetscReal MbsNodeTolerance(PetscReal t, PetscReal span)
{
  return 1e-12 * (PetscAbsReal(t) + span);
}

/* The kernels of coefficient j at t, times the window factor f: A_j = sum_n c_n kc(t_n) y_n, B_j = sum_n c_n ks(t_n) y_n */
static inline void MbsFourierKernel_Private(MbsFourier fourier, PetscInt j, PetscReal t, PetscReal f, PetscReal *kc, PetscReal *ks)
{
  const MbsFourierLine *line = &fourier->line[j];
  PetscReal             L    = line->t_u - line->t_l, scale, phase;

  if (line->order > 0) {
    PetscReal Theta = line->theta_u - line->theta_l, phi, n;

    MbsSpeedProfileAngle(&fourier->angle, t, &phi, &n);
    scale = 2.0 / Theta * line->window((phi - line->theta_l) / Theta, fourier->gain) * (2 * PETSC_PI / 60 * n);
    phase = line->order * phi;
  } else {
    scale = 2.0 / L * line->window((t - line->t_l) / L, fourier->gain);
    phase = fourier->omega[j] * (t - line->t_p);
  }
  *kc = f * scale * PetscCosReal(phase);
  *ks = f * scale * PetscSinReal(phase);
}

/* A run's kernels are rotated from one coefficient to the next, cos and sin of (w + dw) tau from those of w tau and dw
   tau, and evaluated afresh every MBS_FOURIER_ANCHOR coefficients so that rounding cannot build up: two sine-cosine
   pairs per node instead of one per coefficient, for a spectrum of hundreds of lines over 10^4 quadrature nodes. */
#define MBS_FOURIER_ANCHOR 64

static inline PetscBool MbsFourierSameWindow_Private(const MbsFourierLine *a, const MbsFourierLine *b)
{
  return (PetscBool)(a->order == 0 && b->order == 0 && a->t_l == b->t_l && a->t_u == b->t_u && a->t_p == b->t_p && a->window == b->window);
}

/* The run's support is its window, without edge factors */
static inline void MbsFourierRunWindow_Private(MbsFourier fourier, MbsFourierRun *run)
{
  const MbsFourierLine *line = &fourier->line[run->first];

  run->edge  = fourier->nedge;
  run->nedge = 0;
  run->lo    = line->t_l - MbsWindowTolerance(line->t_u - line->t_l);
  run->hi    = line->t_u + MbsWindowTolerance(line->t_u - line->t_l);
}

static PetscErrorCode MbsFourierSetUpRuns_Private(MbsFourier fourier)
{
  PetscFunctionBeginUser;
  if (fourier->n_runs_of == fourier->n) PetscFunctionReturn(0);
  PetscCall(PetscFree3(fourier->run, fourier->kc, fourier->ks));
  PetscCall(PetscMalloc3(fourier->n, &fourier->run, fourier->n, &fourier->kc, fourier->n, &fourier->ks));
  fourier->nrun = 0;
  for (PetscInt j = 0; j < fourier->n; j++) {
    MbsFourierRun *run = fourier->nrun ? &fourier->run[fourier->nrun - 1] : NULL;
    PetscBool      extends;

    extends = (PetscBool)(run && MbsFourierSameWindow_Private(&fourier->line[run->first], &fourier->line[j]));
    if (extends && run->count == 1) run->dw = fourier->omega[j] - fourier->omega[run->first];
    else if (extends) extends = (PetscBool)(PetscAbsReal(fourier->omega[run->first] + run->count * run->dw - fourier->omega[j]) <= 1e-13 * PetscAbsReal(fourier->omega[j]));
    if (extends) run->count++;
    else {
      fourier->run[fourier->nrun] = (MbsFourierRun){.first = j, .count = 1};
      MbsFourierRunWindow_Private(fourier, &fourier->run[fourier->nrun++]);
    }
  }
  fourier->n_runs_of = fourier->n;
  PetscFunctionReturn(0);
}

/* The factor of a node at time t in the window of the run: its edge factor where the window cuts a step, else 1
   inside the window and 0 outside */
static inline PetscReal MbsFourierWindowFactor_Private(MbsFourier fourier, const MbsFourierRun *run, PetscReal t)
{
  const MbsFourierLine *line   = &fourier->line[run->first];
  const PetscReal      *edge_t = fourier->edge_t + run->edge;
  PetscReal             L = line->t_u - line->t_l, tol = MbsNodeTolerance(t, L);
  PetscInt              i = run->nedge ? MbsLowerBound(edge_t, run->nedge, t - tol) : 0;

  if (i < run->nedge && edge_t[i] <= t + tol) return fourier->edge_f[run->edge + i];
  return t >= line->t_l - MbsWindowTolerance(L) && t <= line->t_u + MbsWindowTolerance(L) ? 1.0 : 0.0;
}

/* The kernels of the run's coefficients at t, times the window factor f, in fourier->kc, ks */
static inline void MbsFourierRunKernels_Private(MbsFourier fourier, const MbsFourierRun *run, PetscReal t, PetscReal f)
{
  const MbsFourierLine *line = &fourier->line[run->first];
  PetscReal            *kc = fourier->kc, *ks = fourier->ks, L = line->t_u - line->t_l, tau = t - line->t_p, scale, c = 0, s = 0, c_step, s_step;

  if (run->count == 1) {
    MbsFourierKernel_Private(fourier, run->first, t, f, kc, ks);
    return;
  }
  scale  = f * 2.0 / L * line->window((t - line->t_l) / L, fourier->gain);
  c_step = PetscCosReal(run->dw * tau);
  s_step = PetscSinReal(run->dw * tau);
  for (PetscInt m = 0; m < run->count; m++) {
    if (m % MBS_FOURIER_ANCHOR == 0) {
      c = PetscCosReal(fourier->omega[run->first + m] * tau);
      s = PetscSinReal(fourier->omega[run->first + m] * tau);
    } else {
      PetscReal c_next = c * c_step - s * s_step;

      s = s * c_step + c * s_step;
      c = c_next;
    }
    kc[m] = scale * c;
    ks[m] = scale * s;
  }
}

/* The first node of the run's support, and whether node i lies in it */
static inline PetscInt MbsFourierRunStart_Private(const MbsFourierRun *run, PetscInt n, const PetscReal t[])
{
  return MbsLowerBound(t, n, run->lo);
}

static inline PetscBool MbsFourierRunHolds_Private(const MbsFourierRun *run, PetscInt i, PetscInt n, const PetscReal t[])
{
  return (PetscBool)(i < n && t[i] <= run->hi);
}

/* Length of step k of the step points ts[0..ns-1] inside [t_l, t_u], as a fraction of the step (0 outside the steps) */
static inline PetscReal MbsStepFraction_Private(PetscInt k, PetscInt ns, const PetscReal ts[], PetscReal t_l, PetscReal t_u)
{
  if (k < 0 || k >= ns - 1) return 0;
  return PetscMax(0, PetscMin(ts[k + 1], t_u) - PetscMax(ts[k], t_l)) / (ts[k + 1] - ts[k]);
}

/* Appends the factor (t, f) to fourier->edge_t, edge_f */
static PetscErrorCode MbsFourierAppendEdge_Private(MbsFourier fourier, PetscReal t, PetscReal f)
{
  PetscFunctionBeginUser;
  if (fourier->nedge == fourier->nedge_alloc) {
    PetscInt   nalloc = PetscMax(64, 2 * fourier->nedge_alloc);
    PetscReal *edge_t, *edge_f;

    PetscCall(PetscMalloc2(nalloc, &edge_t, nalloc, &edge_f));
    PetscCall(PetscArraycpy(edge_t, fourier->edge_t, fourier->nedge));
    PetscCall(PetscArraycpy(edge_f, fourier->edge_f, fourier->nedge));
    PetscCall(PetscFree2(fourier->edge_t, fourier->edge_f));
    fourier->edge_t      = edge_t;
    fourier->edge_f      = edge_f;
    fourier->nedge_alloc = nalloc;
  }
  fourier->edge_t[fourier->nedge] = t;
  fourier->edge_f[fourier->nedge] = f;
  fourier->nedge++;
  PetscFunctionReturn(0);
}

/*
  A window inside the simulated interval cuts the integrator's rule: a node at its edge would keep its whole weight,
  which belongs to the steps on both sides of the edge, and a rectangular window would be first-order accurate. The
  rule is applied step by step instead, the share of a node's weight that belongs to a step scaled by the fraction of
  the step inside the window (MbsStepFraction_Private). Every step's shares sum to its length, so constants are
  integrated exactly on every step: second order for any window position, and the rule itself on whole steps. A node
  strictly inside step k belongs to it; a node at a step point t_k carries the shares of the steps before and after it,
  and the share of the step after it is what the cumulative weight up to it exceeds t_k - t_0 by. Nodes of one time
  are one (a Runge-Kutta stage at c = 1 and the next step's stage at c = 0), so that the factor is a function of time,
  as the adjoint density needs. The factors that differ from 1 inside and 0 outside the window go to the run's edges.
*/
static PetscErrorCode MbsFourierEdges_Private(MbsFourier fourier, PetscInt ns, const PetscReal ts[], PetscInt n, const PetscReal t[], const PetscReal c[])
{
  PetscReal sum = 0, compensation = 0, span = ts[ns - 1] - ts[0];

  PetscFunctionBeginUser;
  if (n > fourier->ncumulative_alloc) {
    PetscCall(PetscFree(fourier->cumulative));
    PetscCall(PetscMalloc1(n, &fourier->cumulative));
    fourier->ncumulative_alloc = n;
  }
  for (PetscInt i = 0; i < n; i++) { /* compensated: the shares are differences of sums over up to 10^6 nodes */
    PetscReal next = sum + c[i];

    compensation += PetscAbsReal(sum) >= PetscAbsReal(c[i]) ? (sum - next) + c[i] : (c[i] - next) + sum;
    sum                    = next;
    fourier->cumulative[i] = sum + compensation;
  }
  fourier->nedge = 0;
  for (PetscInt r = 0; r < fourier->nrun; r++) {
    MbsFourierRun        *run  = &fourier->run[r];
    const MbsFourierLine *line = &fourier->line[run->first];
    PetscReal             t_l = line->t_l, t_u = line->t_u, L = t_u - t_l;
    PetscInt              i_end = 0;

    MbsFourierRunWindow_Private(fourier, run);
    for (PetscInt e = 0; e < 2; e++) { /* the steps next to the one each edge cuts, and their nodes */
      PetscInt  k = PetscClipInterval(MbsLowerBound(ts, ns, e ? t_u : t_l) - 1, 0, ns - 2);
      PetscReal a = ts[PetscMax(k - 1, 0)], b = ts[PetscMin(k + 2, ns - 1)];

      for (PetscInt i = PetscMax(MbsLowerBound(t, n, a - MbsNodeTolerance(a, span)), i_end); i < n && t[i] <= b + MbsNodeTolerance(b, span); i = i_end) {
        PetscReal tol = MbsNodeTolerance(t[i], span), W = 0, D, f, inside;
        PetscInt  kp = PetscClipInterval(MbsLowerBound(ts, ns, t[i] - tol), 0, ns - 1);

        for (i_end = i; i_end < n && t[i_end] <= t[i] + tol; i_end++) W += c[i_end];
        if (PetscAbsReal(ts[kp] - t[i]) <= tol) { /* at step point kp: the shares of the steps before and after */
          PetscReal after = kp == ns - 1 ? 0 : (kp == 0 ? W : fourier->cumulative[i_end - 1] - (ts[kp] - ts[0]));

          D = (W - after) * MbsStepFraction_Private(kp - 1, ns, ts, t_l, t_u) + after * MbsStepFraction_Private(kp, ns, ts, t_l, t_u);
        } else D = W * MbsStepFraction_Private(kp - 1, ns, ts, t_l, t_u);
        inside = t[i] >= t_l - MbsWindowTolerance(L) && t[i] <= t_u + MbsWindowTolerance(L) ? 1.0 : 0.0;
        f      = W != 0 ? D / W : inside;
        if (f == inside) continue;
        PetscCall(MbsFourierAppendEdge_Private(fourier, t[i], f));
        run->lo = PetscMin(run->lo, t[i]);
        run->hi = PetscMax(run->hi, t[i]);
      }
    }
    run->nedge = fourier->nedge - run->edge;
  }
  PetscFunctionReturn(0);
}

/* The coefficients from quadrature nodes t (non-decreasing) with weights c of a rule on the step points ts[0..ns-1] */
static PetscErrorCode MbsFourierCompute_Private(MbsFourier fourier, PetscInt ns, const PetscReal ts[], PetscInt n, const PetscReal t[], const PetscReal c[], const PetscReal y[])
{
  PetscReal t_a = ts[0], t_b = ts[ns - 1];

  PetscFunctionBeginUser;
  PetscCheck(n >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Fourier analysis needs at least 2 samples, got %" PetscInt_FMT, n);
  for (PetscInt i = 1; i < n; i++) PetscCheck(t[i] >= t[i - 1], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Quadrature nodes must not decrease: t[%" PetscInt_FMT "] = %.17g < t[%" PetscInt_FMT "] = %.17g", i, (double)t[i], i - 1, (double)t[i - 1]);
  for (PetscInt j = 0; j < fourier->n; j++) {
    PetscReal t_l = fourier->line[j].t_l, t_u = fourier->line[j].t_u, tol = MbsWindowTolerance(t_u - t_l);

    PetscCheck(t_l >= t_a - tol && t_u <= t_b + tol, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Fourier window [%g, %g] s of coefficient %" PetscInt_FMT " (%g Hz) is not inside the simulated interval [%g, %g] s", (double)t_l, (double)t_u, j,
               (double)(fourier->omega[j] / (2 * PETSC_PI)), (double)t_a, (double)t_b);
    fourier->A[j] = fourier->B[j] = 0;
  }
  PetscCall(MbsFourierSetUpRuns_Private(fourier));
  PetscCall(MbsFourierEdges_Private(fourier, ns, ts, n, t, c));
  for (PetscInt r = 0; r < fourier->nrun; r++) {
    const MbsFourierRun *run = &fourier->run[r];
    PetscReal           *A = fourier->A + run->first, *B = fourier->B + run->first;

    for (PetscInt i = MbsFourierRunStart_Private(run, n, t); MbsFourierRunHolds_Private(run, i, n, t); i++) {
      PetscReal f = MbsFourierWindowFactor_Private(fourier, run, t[i]), cy = c[i] * y[i];

      if (f == 0) continue;
      MbsFourierRunKernels_Private(fourier, run, t[i], f);
      for (PetscInt m = 0; m < run->count; m++) {
        A[m] += cy * fourier->kc[m];
        B[m] += cy * fourier->ks[m];
      }
    }
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierCompute - Computes every coefficient from samples (t_n, y_n) with quadrature weights c_n of a rule on the
  samples (the trapezoidal rule, MbsQuadratureWeights()), t increasing; each window must lie inside [t_0, t_{N-1}]. Not
  collective.
@*/
PetscErrorCode MbsFourierCompute(MbsFourier fourier, PetscInt n, const PetscReal t[], const PetscReal c[], const PetscReal y[])
{
  PetscFunctionBeginUser;
  PetscCheck(n >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Fourier analysis needs at least 2 samples, got %" PetscInt_FMT, n);
  PetscCall(MbsFourierCompute_Private(fourier, n, t, n, t, c, y));
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
  PetscCall(MbsFourierCompute_Private(fourier, signal->n, signal->t, signal->nq, signal->tq, signal->wq, signal->yq));
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
  MbsFourierExplainAlias - An error message (empty: none), naming source, for the first coefficient whose frequency is
  not below 1/(2h), h the longest step of the signal within its window, where the quadrature only sees an alias.
  Adaptive steps depend on the parameters, so a signal of one parameter set may alias where another did not. Not
  collective.
@*/
PetscErrorCode MbsFourierExplainAlias(MbsFourier fourier, const MbsSignal *signal, const char source[], char message[], size_t size)
{
  const PetscReal *t = signal->t;
  PetscInt         n = signal->n;
  PetscReal        h = 0;
  char             coefficient[128];

  PetscFunctionBeginUser;
  message[0] = 0;
  for (PetscInt j = 0; j < fourier->n; j++) {
    PetscReal t_l = fourier->line[j].t_l, t_u = fourier->line[j].t_u;

    if (j == 0 || t_l != fourier->line[j - 1].t_l || t_u != fourier->line[j - 1].t_u) { /* the lines of a spectrum share their window */
      h = 0;
      for (PetscInt i = PetscMax(MbsLowerBound(t, n, t_l) - 1, 0); i < n - 1 && t[i] < t_u; i++) h = PetscMax(h, t[i + 1] - t[i]);
    }
    if (fourier->omega[j] / (2 * PETSC_PI) * 2 * h >= 1 - 1e-9) { /* at the Nyquist frequency itself the sine is lost */
      PetscCall(MbsFourierDescribe_Private(fourier, j, coefficient, sizeof(coefficient)));
      PetscCall(PetscSNPrintf(message, size, "%s: %s lies at or above the Nyquist frequency %g Hz of the simulation, whose steps reach %g s in its window; leave it out (-band_hz, -orders, -speed_rpm) or take smaller steps (-ts_dt, -ts_adapt_dt_max)", source, coefficient, (double)(0.5 / h), (double)h));
      break;
    }
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierGetNyquistStep - The longest step [s] that aliases none of the coefficients: just below 1/(2 f_max), f_max
  the highest analysed frequency (0: no coefficients). An adaptive integration capped there (-ts_adapt_dt_max) passes
  MbsFourierCheckSignal()'s check of the steps whatever the parameters. Not collective.
@*/
PetscErrorCode MbsFourierGetNyquistStep(MbsFourier fourier, PetscReal *h)
{
  PetscReal omega_max = 0;

  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < fourier->n; j++) omega_max = PetscMax(omega_max, fourier->omega[j]);
  *h = omega_max > 0 ? (1 - 1e-6) * PETSC_PI / omega_max : 0;
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierCheckSignal - Raises an error, naming source (the measurement or the options the coefficients come from),
  for the first coefficient that the signal cannot give: its window reaches outside the simulated interval, or its
  frequency is not below 1/(2h), h the longest step within its window (MbsFourierExplainAlias()). Not collective.
@*/
PetscErrorCode MbsFourierCheckSignal(MbsFourier fourier, const MbsSignal *signal, const char source[])
{
  const PetscReal *t = signal->t;
  PetscInt         n = signal->n;
  char             coefficient[128], alias[PETSC_MAX_PATH_LEN + 512];

  PetscFunctionBeginUser;
  PetscCheck(n >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Fourier analysis needs a signal of at least one step, got %" PetscInt_FMT " samples", n);
  for (PetscInt j = 0; j < fourier->n; j++) {
    PetscReal t_l = fourier->line[j].t_l, t_u = fourier->line[j].t_u, tol = MbsWindowTolerance(t_u - t_l);

    if (t_l < t[0] - tol || t_u > t[n - 1] + tol) {
      PetscCall(MbsFourierDescribe_Private(fourier, j, coefficient, sizeof(coefficient)));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: %s needs the window [%g, %g] s, which is not inside the simulated interval [%g, %g] s; leave it out (-band_hz, -speed_rpm) or simulate longer (-time_span, -ramp_rpm, -ramp_time)", source, coefficient, (double)t_l, (double)t_u, (double)t[0], (double)t[n - 1]);
    }
  }
  PetscCall(MbsFourierExplainAlias(fourier, signal, source, alias, sizeof(alias)));
  PetscCheck(!alias[0], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s", alias);
  PetscFunctionReturn(0);
}

/*@C
  MbsFourierAdjointDensity - G(t) = sum_j (alpha_j kc_j(t) + beta_j ks_j(t)) over the windows that contain t (time
  domain: kc_j = 2/L_j eta_j(t) cos w_j tau; MbsFourierKernel_Private), so that for J(A, B) with alpha = dJ/dA,
  beta = dJ/dB the derivative with respect to a sample is dJ/dy_n = c_n G(t_n), c_n the sample's quadrature weight.
  Not collective.
@*/
PetscErrorCode MbsFourierAdjointDensity(MbsFourier fourier, const PetscReal alpha[], const PetscReal beta[], PetscReal t, PetscReal *G)
{
  PetscFunctionBeginUser;
  PetscCall(MbsFourierAdjointDensitySamples(fourier, alpha, beta, 1, &t, G));
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
  PetscCall(MbsFourierSetUpRuns_Private(fourier));
  for (PetscInt r = 0; r < fourier->nrun; r++) {
    const MbsFourierRun *run = &fourier->run[r];
    const PetscReal     *a = alpha + run->first, *b = beta + run->first;
    PetscBool            forced = PETSC_FALSE;

    for (PetscInt m = 0; m < run->count && !forced; m++) forced = (PetscBool)(a[m] != 0 || b[m] != 0);
    if (!forced) continue;
    for (PetscInt i = MbsFourierRunStart_Private(run, n, t); MbsFourierRunHolds_Private(run, i, n, t); i++) {
      PetscReal f = MbsFourierWindowFactor_Private(fourier, run, t[i]);

      if (f == 0) continue;
      MbsFourierRunKernels_Private(fourier, run, t[i], f);
      for (PetscInt m = 0; m < run->count; m++) G[i] += a[m] * fourier->kc[m] + b[m] * fourier->ks[m];
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
  *t_l = fourier->line[j].t_l;
  *t_u = fourier->line[j].t_u;
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
