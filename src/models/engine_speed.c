/*
  The engine speed of an experiment: constant (-stationary_rpm n, a point of a stationary speed sweep), a linear
  run-up from n0 at t0 to n1 at t1 (-ramp_rpm n0,n1 -ramp_time t0,t1, the same options as the order analysis), held
  constant outside [t0, t1], or a measured speed (-speed_profile FILE: the table /speed_profile/{t, rpm[, angle]} of
  a measurement file, written by mbsid import or mbsid track), held constant outside its rows. Between two rows the
  angle is the cubic Hermite interpolant of the rows' angles and speeds: with the angles of a tachometer, exact at its
  pulses, it does not drift over a long run-up; without them each row's angle is the trapezoidal integral of the
  speeds, and the cubic reduces to a speed that is linear between the rows.
  The crank angle is phi(t) = 2 pi/60 int_0^t n dt [rad], n in rpm, zero at t = 0 (engine4.md section 7: q0(t) of
  the prescribed run-up).
*/
#include "models/modelimpl.h"

static const PetscReal MbsRpmToRadPerSecond = 2 * PETSC_PI / 60;

/* Angle Phi(t) of a table, its rate [rpm] and acceleration [rad/s^2] (see the head comment) */
static void MbsSpeedTableEvaluate_Private(const MbsSpeedProfile *profile, PetscReal t, PetscReal *Phi, PetscReal *n, PetscReal *acceleration)
{
  const PetscReal *tt = profile->table_t, *rpm = profile->table_rpm, *phi = profile->table_phi;
  PetscInt         m = profile->ntable, i;

  if (t <= tt[0] || t >= tt[m - 1]) {
    i             = t <= tt[0] ? 0 : m - 1;
    *n            = rpm[i];
    *Phi          = phi[i] + MbsRpmToRadPerSecond * rpm[i] * (t - tt[i]);
    *acceleration = 0;
    return;
  }
  i = MbsLowerBound(tt, m, t); /* tt[i - 1] < t <= tt[i] */
  {
    PetscReal h = tt[i] - tt[i - 1], s = (t - tt[i - 1]) / h, w0 = MbsRpmToRadPerSecond * rpm[i - 1] * h, w1 = MbsRpmToRadPerSecond * rpm[i] * h, d = phi[i] - phi[i - 1];

    *Phi          = phi[i - 1] + s * w0 + s * s * (3 * d - 2 * w0 - w1) + s * s * s * (w0 + w1 - 2 * d);
    *n            = (w0 + 2 * s * (3 * d - 2 * w0 - w1) + 3 * s * s * (w0 + w1 - 2 * d)) / (h * MbsRpmToRadPerSecond);
    *acceleration = (2 * (3 * d - 2 * w0 - w1) + 6 * s * (w0 + w1 - 2 * d)) / (h * h);
  }
}

static PetscErrorCode MbsSpeedProfileSetMeasured_Private(MbsSpeedProfile *profile, const MbsMeasurement *meas, const char path[])
{
  PetscFunctionBeginUser;
  PetscCheck(meas->nprofile >= 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "-speed_profile: file '%s' has no speed table /speed_profile/t, /speed_profile/rpm of at least 2 rows (mbsid import -kind speed_profile or mbsid track write one)", path);
  PetscCall(MbsSpeedProfileSetTable(profile, meas->nprofile, meas->profile_t, meas->profile_rpm, meas->profile_angle, path));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsSpeedProfileLoad_Private(MbsSpeedProfile *profile, const char path[])
{
  MbsMeasurement meas;

  PetscFunctionBeginUser;
  PetscCall(MbsMeasurementRead(PETSC_COMM_SELF, path, &meas));
  MbsCallCleanup(MbsSpeedProfileSetMeasured_Private(profile, &meas, path), MbsMeasurementReset(&meas));
  PetscFunctionReturn(0);
}

/*@C
  MbsSpeedProfileSetFromOptions - Reads -stationary_rpm, -ramp_rpm, -ramp_time and -speed_profile within the caller's options block. Not collective.
@*/
PetscErrorCode MbsSpeedProfileSetFromOptions(PetscOptionItems *PetscOptionsObject, MbsSpeedProfile *profile)
{
  PetscInt  nrpm = 2, ntime = 2;
  PetscBool set;
  char      path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(path, profile->table_path, sizeof(path)));
  PetscCall(PetscOptionsReal("-stationary_rpm", "Constant engine speed [rpm] (a stationary sweep point; 0: the run-up -ramp_rpm)", "MbsSpeedProfileAngle", profile->stationary_rpm, &profile->stationary_rpm, NULL));
  PetscCall(MbsOptionsRealArray(PetscOptionsObject, "-ramp_rpm", "Run-up speeds n0,n1 [rpm] at -ramp_time", "MbsSpeedProfileAngle", 2, profile->ramp_rpm, &nrpm, &set));
  PetscCheck(!set || nrpm == 2, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-ramp_rpm needs two values n0,n1 [rpm]");
  PetscCall(MbsOptionsRealArray(PetscOptionsObject, "-ramp_time", "Run-up times t0,t1 [s]", "MbsSpeedProfileAngle", 2, profile->ramp_time, &ntime, &set));
  PetscCheck(!set || ntime == 2, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-ramp_time needs two values t0,t1 [s]");
  PetscCall(MbsOptionsInputFile(PetscOptionsObject, "-speed_profile", "Measured engine speed: a measurement file with /speed_profile/t, /speed_profile/rpm (replaces -ramp_rpm)", "MbsSpeedProfileAngle", path, sizeof(path), &set));
  PetscCheck(profile->stationary_rpm >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-stationary_rpm must be >= 0, got %g", (double)profile->stationary_rpm);
  PetscCheck(!(path[0] && profile->stationary_rpm > 0), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Give -stationary_rpm or -speed_profile, not both");
  PetscCheck(profile->stationary_rpm > 0 || path[0] || profile->ramp_time[1] > profile->ramp_time[0], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-ramp_time %g,%g: t1 must exceed t0", (double)profile->ramp_time[0], (double)profile->ramp_time[1]);
  if (set) PetscCall(MbsSpeedProfileLoad_Private(profile, path));
  PetscFunctionReturn(0);
}

/*@C
  MbsSpeedProfileCopy - Copies a speed profile, its table included, into an empty (zeroed) one. Not collective.
@*/
PetscErrorCode MbsSpeedProfileCopy(const MbsSpeedProfile *source, MbsSpeedProfile *copy)
{
  PetscFunctionBeginUser;
  *copy = *source;
  if (source->ntable) {
    PetscCall(PetscMalloc3(source->ntable, &copy->table_t, source->ntable, &copy->table_rpm, source->ntable, &copy->table_phi));
    PetscCall(PetscArraycpy(copy->table_t, source->table_t, source->ntable));
    PetscCall(PetscArraycpy(copy->table_rpm, source->table_rpm, source->ntable));
    PetscCall(PetscArraycpy(copy->table_phi, source->table_phi, source->ntable));
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsSpeedProfileSetTable - Makes the profile the table of speeds rpm[] at times t[] (increasing, rpm > 0), with the
  crank angles angle[] [rad] at those times (increasing; NULL: integrated from the speeds). Not collective.
@*/
PetscErrorCode MbsSpeedProfileSetTable(MbsSpeedProfile *profile, PetscInt n, const PetscReal t[], const PetscReal rpm[], const PetscReal angle[], const char source[])
{
  PetscFunctionBeginUser;
  PetscCheck(n >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: a speed table needs at least 2 rows, got %" PetscInt_FMT, source, n);
  for (PetscInt i = 0; i < n; i++) {
    PetscCheck(rpm[i] > 0 && !PetscIsInfOrNanReal(rpm[i]), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: the speed at t = %g s is %g rpm; it must be positive", source, (double)t[i], (double)rpm[i]);
    PetscCheck(i == 0 || t[i] > t[i - 1], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: the times of a speed table must increase strictly, but row %" PetscInt_FMT " has %.17g after %.17g s", source, i, (double)t[i], (double)t[i - 1]);
    PetscCheck(!angle || i == 0 || angle[i] > angle[i - 1], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: the crank angles of a speed table must increase strictly, but row %" PetscInt_FMT " has %.17g after %.17g rad", source, i, (double)angle[i], (double)angle[i - 1]);
  }
  PetscCall(MbsSpeedProfileReset(profile));
  if (source != profile->table_path) PetscCall(PetscStrncpy(profile->table_path, source, sizeof(profile->table_path)));
  profile->ntable = n;
  PetscCall(PetscMalloc3(n, &profile->table_t, n, &profile->table_rpm, n, &profile->table_phi));
  PetscCall(PetscArraycpy(profile->table_t, t, n));
  PetscCall(PetscArraycpy(profile->table_rpm, rpm, n));
  {
    PetscReal Phi0, n0, acceleration;

    profile->table_phi[0] = 0;
    for (PetscInt i = 1; i < n; i++) profile->table_phi[i] = angle ? angle[i] - angle[0] : profile->table_phi[i - 1] + MbsRpmToRadPerSecond * 0.5 * (rpm[i - 1] + rpm[i]) * (t[i] - t[i - 1]);
    MbsSpeedTableEvaluate_Private(profile, 0, &Phi0, &n0, &acceleration); /* phi(0) = 0 */
    for (PetscInt i = 0; i < n; i++) profile->table_phi[i] -= Phi0;
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsSpeedProfileReset - Frees the table of a speed profile; the ramp and stationary speed stay. Not collective.
@*/
PetscErrorCode MbsSpeedProfileReset(MbsSpeedProfile *profile)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(profile->table_t, profile->table_rpm, profile->table_phi));
  profile->ntable = 0;
  PetscFunctionReturn(0);
}

/*@C
  MbsSpeedProfileAngle - Crank angle phi(t) [rad] and speed n(t) [rpm]. Not collective.
@*/
void MbsSpeedProfileAngle(const MbsSpeedProfile *profile, PetscReal t, PetscReal *phi, PetscReal *n)
{
  const PetscReal t0 = profile->ramp_time[0], t1 = profile->ramp_time[1], n0 = profile->ramp_rpm[0], n1 = profile->ramp_rpm[1];

  if (profile->ntable) {
    PetscReal acceleration;

    MbsSpeedTableEvaluate_Private(profile, t, phi, n, &acceleration);
  } else if (profile->stationary_rpm > 0) {
    *n   = profile->stationary_rpm;
    *phi = MbsRpmToRadPerSecond * *n * t;
  } else if (t <= t0) {
    *n   = n0;
    *phi = MbsRpmToRadPerSecond * n0 * t;
  } else if (t <= t1) {
    *n   = n0 + (n1 - n0) * (t - t0) / (t1 - t0);
    *phi = MbsRpmToRadPerSecond * (n0 * t + 0.5 * (n1 - n0) * (t - t0) * (t - t0) / (t1 - t0));
  } else {
    *n   = n1;
    *phi = MbsRpmToRadPerSecond * (n0 * t1 + 0.5 * (n1 - n0) * (t1 - t0) + n1 * (t - t1));
  }
}

/*@C
  MbsSpeedProfileAcceleration - Angular acceleration phi''(t) [rad/s^2]: constant on the ramp, linear between the rows
  of a table, zero outside (its jumps are those of section 7). Not collective.
@*/
PetscReal MbsSpeedProfileAcceleration(const MbsSpeedProfile *profile, PetscReal t)
{
  const PetscReal t0 = profile->ramp_time[0], t1 = profile->ramp_time[1];

  if (profile->ntable) {
    PetscReal phi, n, acceleration;

    MbsSpeedTableEvaluate_Private(profile, t, &phi, &n, &acceleration);
    return acceleration;
  }
  if (profile->stationary_rpm > 0 || t <= t0 || t > t1) return 0;
  return MbsRpmToRadPerSecond * (profile->ramp_rpm[1] - profile->ramp_rpm[0]) / (t1 - t0);
}

/*@C
  MbsSpeedProfileTime - The time t [s] at which the crank angle reaches phi [rad] (the speed is positive, so phi(t)
  increases). Not collective.
@*/
PetscErrorCode MbsSpeedProfileTime(const MbsSpeedProfile *profile, PetscReal phi, PetscReal *t)
{
  PetscReal lo = 0, hi = 0, phi_lo, phi_hi, n;

  PetscFunctionBeginUser;
  MbsSpeedProfileAngle(profile, lo, &phi_lo, &n);
  PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The crank angle needs a positive engine speed, got %g rpm (-ramp_rpm, -stationary_rpm)", (double)n);
  /* bracket, then bisect: phi(t) is only piecewise smooth, and a few dozen halvings cost nothing next to a solve */
  for (PetscReal step = 60 / n; phi_lo > phi; step *= 2) {
    hi = lo;
    lo -= step;
    MbsSpeedProfileAngle(profile, lo, &phi_lo, &n);
  }
  MbsSpeedProfileAngle(profile, hi, &phi_hi, &n);
  for (PetscReal step = 60 / n; phi_hi < phi; step *= 2) {
    lo = hi;
    hi += step;
    MbsSpeedProfileAngle(profile, hi, &phi_hi, &n);
  }
  for (PetscInt k = 0; k < 200 && hi - lo > 4 * PETSC_MACHINE_EPSILON * PetscMax(1, PetscAbsReal(hi)); k++) {
    PetscReal mid = 0.5 * (lo + hi), phi_mid;

    MbsSpeedProfileAngle(profile, mid, &phi_mid, &n);
    if (phi_mid < phi) lo = mid;
    else hi = mid;
  }
  *t = 0.5 * (lo + hi);
  PetscFunctionReturn(0);
}
