static const char help[] = "Checks the closed-form laws of engine4 (cylinder pressure, DMF torque, slider-crank inertia) against the spec's self-check values.\n";

/*
  ../shared/models/engine4.md, sections 6 and 7: the printed self-check values of p(psi, N) [bar] and T_DMF [N m,
  N m/rad] to 1e-6 (they carry 7 digits); dp/dpsi against central differences away from the kinks; p continuous at
  bottom dead centre; the peak pressure 48-59 bar at 14-19 degrees after TDC; and the cycle-mean gas torque of the
  four cylinders, (1/4 pi) int sum_i -(p - p_cc) A_P dz/dpsi dpsi = 4 x one cylinder's mean, 152.8, 184.9 and
  189.7 N m at 1000, 3000 and 4000 rpm (to the printed 4 digits). The prescribed run-up q0(t) of section 7 (1000 to
  6500 rpm over 1 s to 6.5 s): its closed-form end value, and q0' = 2 pi n(t) by central differences.
*/
#include "mbstest.h"
#include "models/modelimpl.h"

static PetscReal Bar(const MbsEngineLaws *laws, PetscReal degrees, PetscReal N)
{
  PetscReal p;

  MbsCylinderPressure(laws, degrees * PETSC_PI / 180, N, &p, NULL);
  return p / 1e5;
}

/* Piston position z(psi) from the crank axis and dz/dpsi */
static PetscReal PistonVelocityRatio(const MbsEngineLaws *laws, PetscReal psi)
{
  PetscReal r = laws->r_cs, l = laws->l_cr, s = PetscSinReal(psi);

  return -r * s - r * r * s * PetscCosReal(psi) / PetscSqrtReal(l * l - r * r * s * s);
}

int main(int argc, char **argv)
{
  MbsEngineLaws laws;
  MbsTest       test = {0, 0};
  PetscReal     T, dT;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  MbsEngineLawsDefault(&laws);
  PetscCall(MbsTestClose(&test, "p(0 deg, 1000 rpm) [bar]", Bar(&laws, 0, 1000), 24.65807, 1e-6, 0));
  PetscCall(MbsTestClose(&test, "p(10 deg, 3000 rpm) [bar]", Bar(&laws, 10, 3000), 50.20970, 1e-6, 0));
  PetscCall(MbsTestClose(&test, "p(60 deg, 3000 rpm) [bar]", Bar(&laws, 60, 3000), 15.95107, 1e-6, 0));
  PetscCall(MbsTestClose(&test, "p(130 deg, 6000 rpm) [bar]", Bar(&laws, 130, 6000), 4.905686, 1e-6, 0));
  PetscCall(MbsTestClose(&test, "p(-90 deg, 1000 rpm) [bar]", Bar(&laws, -90, 1000), 1.894657, 1e-6, 0));
  PetscCall(MbsTestClose(&test, "p(-90 deg, 6000 rpm) [bar]", Bar(&laws, -90, 6000), 1.894657, 1e-6, 0));
  PetscCall(MbsTestClose(&test, "p(720 deg, 3000 rpm) [bar]", Bar(&laws, 720, 3000), 29.96740, 1e-6, 0));
  PetscCall(MbsTestClose(&test, "p(0 deg, 3000 rpm) [bar]", Bar(&laws, 0, 3000), 29.96740, 1e-6, 0));
  PetscCall(MbsTestClose(&test, "p(360 deg, 3000 rpm) [bar]", Bar(&laws, 360, 3000), 1.0, 1e-12, 0));
  PetscCall(MbsTestClose(&test, "p just before BDC (180 deg) [bar]", Bar(&laws, 180 - 1e-7, 3000), 1.0, 1e-6, 0));
  PetscCall(MbsTestClose(&test, "p just after BDC (-180 deg) [bar]", Bar(&laws, -180 + 1e-7, 3000), 1.0, 1e-6, 0));

  MbsDmfTorque(&laws, 0.2, &T, NULL);
  PetscCall(MbsTestClose(&test, "T_DMF(0.2) [N m]", T, 35.526975, 1e-6, 0));
  MbsDmfTorque(&laws, 0.55, &T, &dT);
  PetscCall(MbsTestClose(&test, "T_DMF(0.55) [N m]", T, 176.202303, 1e-6, 0));
  PetscCall(MbsTestClose(&test, "T_DMF'(0.55) [N m/rad]", dT, 831.472590, 1e-6, 0));
  MbsDmfTorque(&laws, -0.3, &T, NULL);
  PetscCall(MbsTestClose(&test, "T_DMF(-0.3) [N m]", T, -54.078022, 1e-6, 0));
  MbsDmfTorque(&laws, 0, &T, &dT);
  PetscCall(MbsTestClose(&test, "T_DMF'(0) [N m/rad]", dT, 176.479891, 1e-6, 0));

  /* derivatives against central differences, away from the kinks of p'' (BDC, EVO, SOC) */
  {
    const PetscReal degrees[] = {-150, -60, -20, 5, 20, 45, 100, 150, 170, 400}, speeds[] = {1000, 3500, 6500};

    for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(degrees); i++)
      for (size_t j = 0; j < PETSC_STATIC_ARRAY_LENGTH(speeds); j++) {
        PetscReal psi = degrees[i] * PETSC_PI / 180, h = 1e-6, p, dp, pp, pm;

        MbsCylinderPressure(&laws, psi, speeds[j], &p, &dp);
        MbsCylinderPressure(&laws, psi + h, speeds[j], &pp, NULL);
        MbsCylinderPressure(&laws, psi - h, speeds[j], &pm, NULL);
        PetscCall(MbsTestClose(&test, "dp/dpsi against central differences [Pa/rad]", dp, (pp - pm) / (2 * h), 1e-6, 1e-3));
      }
    for (PetscReal phi = -0.8; phi <= 0.8; phi += 0.2) {
      PetscReal Tp, Tm, h = 1e-6;

      MbsDmfTorque(&laws, phi, &T, &dT);
      MbsDmfTorque(&laws, phi + h, &Tp, NULL);
      MbsDmfTorque(&laws, phi - h, &Tm, NULL);
      PetscCall(MbsTestClose(&test, "T_DMF' against central differences", dT, (Tp - Tm) / (2 * h), 1e-7, 0));
    }
  }

  /* peak pressure and the cycle-mean gas torque */
  {
    const PetscReal speeds[] = {1000, 3000, 4000}, torque[] = {152.8, 184.9, 189.7};
    const PetscInt  n = 400000;

    for (PetscInt j = 0; j < 3; j++) {
      PetscReal peak = 0, at = 0, sum = 0, h = 4 * PETSC_PI / n;

      for (PetscInt i = 0; i < n; i++) { /* midpoint rule over one 720 degree cycle */
        PetscReal psi = -2 * PETSC_PI + (i + 0.5) * h, p;

        MbsCylinderPressure(&laws, psi, speeds[j], &p, NULL);
        if (p > peak) {
          peak = p;
          at   = psi;
        }
        sum += -(p - laws.p_cc) * laws.A_P * PistonVelocityRatio(&laws, psi) * h;
      }
      PetscCall(MbsTestTrue(&test, "peak pressure 48-59 bar", (PetscBool)(peak >= 48e5 && peak <= 59e5)));
      PetscCall(MbsTestTrue(&test, "peak at 14-19 degrees after TDC", (PetscBool)(at * 180 / PETSC_PI >= 14 && at * 180 / PETSC_PI <= 19)));
      PetscCall(MbsTestClose(&test, "cycle-mean gas torque of 4 cylinders [N m]", 4 * sum / (4 * PETSC_PI), torque[j], 5e-4, 0));
      PetscCall(MbsTestClose(&test, "MbsGasTorqueMean [N m]", MbsGasTorqueMean(&laws, speeds[j]), torque[j], 5e-4, 0));
    }
  }
  {
    MbsSpeedProfile profile = {
      .ramp_rpm = {1000, 6500},
        .ramp_time = {1,    6.5 }
    };
    PetscReal phi, n, phi_p, phi_m, h = 1e-6;

    MbsSpeedProfileAngle(&profile, 6.5, &phi, &n);
    PetscCall(MbsTestClose(&test, "q0(t1) = 2 pi [n0 t1 + (n1 - n0)(t1 - t0)/2] [rad]", phi, 2 * PETSC_PI * (50.0 / 3 * 6.5 + 0.5 * 275.0 / 3 * 5.5), 1e-14, 0));
    for (PetscReal t = 0.5; t < 8; t += 0.75) {
      MbsSpeedProfileAngle(&profile, t, &phi, &n);
      MbsSpeedProfileAngle(&profile, t + h, &phi_p, &n);
      MbsSpeedProfileAngle(&profile, t - h, &phi_m, &n);
      MbsSpeedProfileAngle(&profile, t, &phi, &n);
      PetscCall(MbsTestClose(&test, "q0' = 2 pi n(t)/60 [rad/s]", (phi_p - phi_m) / (2 * h), 2 * PETSC_PI * n / 60, 1e-7, 0));
    }
  }
  /* a measured speed table that samples the run-up at its corners is the run-up: angle, speed, acceleration, and the
     time at which an angle is reached */
  {
    MbsSpeedProfile ramp =
                      {
                        .ramp_rpm = {1000, 6500},
                          .ramp_time = {1,    6.5 }
    },
                    table    = {.ramp_time = {0, 1}};
    const PetscReal rows_t[] = {-0.5, 1, 6.5, 9}, rows_rpm[] = {1000, 1000, 6500, 6500};

    PetscCall(MbsSpeedProfileSetTable(&table, 4, rows_t, rows_rpm, NULL, "test table"));
    for (PetscReal t = -0.4; t < 10; t += 0.37) {
      PetscReal phi_ramp, n_ramp, phi_table, n_table, t_back;

      MbsSpeedProfileAngle(&ramp, t, &phi_ramp, &n_ramp);
      MbsSpeedProfileAngle(&table, t, &phi_table, &n_table);
      PetscCall(MbsTestClose(&test, "table angle = run-up angle [rad]", phi_table, phi_ramp, 1e-13, 1e-12));
      PetscCall(MbsTestClose(&test, "table speed = run-up speed [rpm]", n_table, n_ramp, 1e-14, 0));
      PetscCall(MbsTestClose(&test, "table q0'' = run-up q0'' [rad/s^2]", MbsSpeedProfileAcceleration(&table, t), MbsSpeedProfileAcceleration(&ramp, t), 1e-13, 1e-12));
      PetscCall(MbsSpeedProfileTime(&table, phi_table, &t_back));
      PetscCall(MbsTestClose(&test, "MbsSpeedProfileTime inverts the angle [s]", t_back, t, 0, 1e-12));
    }
    PetscCall(MbsSpeedProfileReset(&table));
  }
  /* section 8: the exact slider-crank elimination, J_rec and its cycle mean */
  {
    PetscCall(MbsTestClose(&test, "J_rec(0) [kg m^2]", MbsReducedInertia(&laws, 0), 6.890284e-4, 1e-6, 0));
    PetscCall(MbsTestClose(&test, "J_rec(pi/2) [kg m^2]", MbsReducedInertia(&laws, PETSC_PI / 2), 1.793530e-3, 1e-6, 0));
    PetscCall(MbsTestClose(&test, "cycle mean of J_rec [kg m^2]", MbsReducedInertiaMean(&laws), 1.253219e-3, 1e-6, 0));
    for (PetscReal theta = -3; theta < 10; theta += 0.7) {
      MbsSliderCrank sc, sp, sm;
      PetscReal      h = 1e-6, r = laws.r_cs, l = laws.l_cr;

      MbsSliderCrankPosition(&laws, theta, &sc);
      MbsSliderCrankPosition(&laws, theta + h, &sp);
      MbsSliderCrankPosition(&laws, theta - h, &sm);
      PetscCall(MbsTestClose(&test, "constraint r sin(theta) = l sin(beta) [m]", r * PetscSinReal(theta), l * PetscSinReal(sc.beta), 0, 1e-15));
      PetscCall(MbsTestClose(&test, "beta' against central differences", sc.dbeta, (sp.beta - sm.beta) / (2 * h), 1e-7, 1e-10));
      PetscCall(MbsTestClose(&test, "x' against central differences [m/rad]", sc.dx, (sp.x - sm.x) / (2 * h), 1e-7, 1e-10));
      PetscCall(MbsTestClose(&test, "y' against central differences [m/rad]", sc.dy, (sp.y - sm.y) / (2 * h), 1e-7, 1e-10));
      PetscCall(MbsTestClose(&test, "z' against the closed form [m/rad]", sc.dz, PistonVelocityRatio(&laws, theta), 1e-12, 1e-15));
    }
    /* the minimal form's J_rec, J_rec', J_rec'', z', z'' against J_rec and z' and their central differences */
    for (PetscReal theta = -3; theta < 10; theta += 0.35) {
      PetscReal jet[3], jp[3], jm[3], dz[2], dzp[2], dzm[2], h = 1e-5;

      MbsReducedInertiaDerivatives(&laws, theta, jet, dz);
      MbsReducedInertiaDerivatives(&laws, theta + h, jp, dzp);
      MbsReducedInertiaDerivatives(&laws, theta - h, jm, dzm);
      PetscCall(MbsTestClose(&test, "J_rec of the derivatives = J_rec [kg m^2]", jet[0], MbsReducedInertia(&laws, theta), 1e-14, 0));
      PetscCall(MbsTestClose(&test, "J_rec' against central differences of J_rec [kg m^2/rad]", jet[1], (MbsReducedInertia(&laws, theta + h) - MbsReducedInertia(&laws, theta - h)) / (2 * h), 1e-7, 1e-12));
      PetscCall(MbsTestClose(&test, "J_rec'' against central differences of J_rec' [kg m^2/rad^2]", jet[2], (jp[1] - jm[1]) / (2 * h), 1e-7, 1e-12));
      PetscCall(MbsTestClose(&test, "z' of the derivatives = z' [m/rad]", dz[0], PistonVelocityRatio(&laws, theta), 1e-12, 1e-15));
      PetscCall(MbsTestClose(&test, "z'' against central differences of z' [m/rad^2]", dz[1], (dzp[0] - dzm[0]) / (2 * h), 1e-7, 1e-12));
    }
  }
  {
    MbsSpeedProfile profile = {
      .ramp_rpm = {1000, 6500},
        .ramp_time = {1,    6.5 }
    };

    for (PetscReal t = 0.3; t < 8; t += 0.75) { /* away from the jumps of q0'' at t0 and t1 */
      PetscReal phi, np, nm, h = 1e-6;

      MbsSpeedProfileAngle(&profile, t + h, &phi, &np);
      MbsSpeedProfileAngle(&profile, t - h, &phi, &nm);
      PetscCall(MbsTestClose(&test, "q0'' = 2 pi n'(t)/60 [rad/s^2]", MbsSpeedProfileAcceleration(&profile, t), 2 * PETSC_PI / 60 * (np - nm) / (2 * h), 1e-6, 1e-9));
    }
  }
  PetscCall(MbsTestFinish(&test));
  PetscCall(PetscFinalize());
  return 0;
}
