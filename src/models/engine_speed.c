/*
  The engine speed of an experiment: constant (-stationary_rpm n, a point of a stationary speed sweep) or a
  linear run-up from n0 at t0 to n1 at t1 (-ramp_rpm n0,n1 -ramp_time t0,t1, the same options as the order
  analysis), held constant outside [t0, t1]. The crank angle is phi(t) = 2 pi/60 int_0^t n dt [rad], n in rpm,
  zero at t = 0 (engine4.md section 7: q0(t) of the prescribed run-up).
*/
#include "models/modelimpl.h"

/*@C
  MbsSpeedProfileSetFromOptions - Reads -stationary_rpm, -ramp_rpm and -ramp_time within the caller's options block. Not collective.
@*/
PetscErrorCode MbsSpeedProfileSetFromOptions(PetscOptionItems *PetscOptionsObject, MbsSpeedProfile *profile)
{
  PetscInt  nrpm = 2, ntime = 2;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsReal("-stationary_rpm", "Constant engine speed [rpm] (a stationary sweep point; 0: the run-up -ramp_rpm)", "MbsSpeedProfileAngle", profile->stationary_rpm, &profile->stationary_rpm, NULL));
  PetscCall(PetscOptionsRealArray("-ramp_rpm", "Run-up speeds n0,n1 [rpm] at -ramp_time", "MbsSpeedProfileAngle", profile->ramp_rpm, &nrpm, &set));
  PetscCheck(!set || nrpm == 2, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-ramp_rpm needs two values n0,n1 [rpm]");
  PetscCall(PetscOptionsRealArray("-ramp_time", "Run-up times t0,t1 [s]", "MbsSpeedProfileAngle", profile->ramp_time, &ntime, &set));
  PetscCheck(!set || ntime == 2, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-ramp_time needs two values t0,t1 [s]");
  PetscCheck(profile->stationary_rpm >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-stationary_rpm must be >= 0, got %g", (double)profile->stationary_rpm);
  PetscCheck(profile->stationary_rpm > 0 || profile->ramp_time[1] > profile->ramp_time[0], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-ramp_time %g,%g: t1 must exceed t0", (double)profile->ramp_time[0], (double)profile->ramp_time[1]);
  PetscFunctionReturn(0);
}

/*@C
  MbsSpeedProfileAngle - Crank angle phi(t) [rad] and speed n(t) [rpm]. Not collective.
@*/
void MbsSpeedProfileAngle(const MbsSpeedProfile *profile, PetscReal t, PetscReal *phi, PetscReal *n)
{
  const PetscReal to_rad = 2 * PETSC_PI / 60, t0 = profile->ramp_time[0], t1 = profile->ramp_time[1], n0 = profile->ramp_rpm[0], n1 = profile->ramp_rpm[1];

  if (profile->stationary_rpm > 0) {
    *n   = profile->stationary_rpm;
    *phi = to_rad * *n * t;
  } else if (t <= t0) {
    *n   = n0;
    *phi = to_rad * n0 * t;
  } else if (t <= t1) {
    *n   = n0 + (n1 - n0) * (t - t0) / (t1 - t0);
    *phi = to_rad * (n0 * t + 0.5 * (n1 - n0) * (t - t0) * (t - t0) / (t1 - t0));
  } else {
    *n   = n1;
    *phi = to_rad * (n0 * t1 + 0.5 * (n1 - n0) * (t1 - t0) + n1 * (t - t1));
  }
}

/*@C
  MbsSpeedProfileAcceleration - Angular acceleration phi''(t) [rad/s^2]: constant on the ramp, zero outside (its jumps at
  t0 and t1 are those of section 7). Not collective.
@*/
PetscReal MbsSpeedProfileAcceleration(const MbsSpeedProfile *profile, PetscReal t)
{
  const PetscReal t0 = profile->ramp_time[0], t1 = profile->ramp_time[1];

  if (profile->stationary_rpm > 0 || t <= t0 || t > t1) return 0;
  return 2 * PETSC_PI / 60 * (profile->ramp_rpm[1] - profile->ramp_rpm[0]) / (t1 - t0);
}
