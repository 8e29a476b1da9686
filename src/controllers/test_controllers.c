/*
  The test controllers of ../shared/models/pid_sdof.md, section 3, as the contents of black boxes. Built twice: into
  the plug-in library libmbsid_test_controllers.so (an example of wrapping a controller, loaded by path) and into
  mbsid as its built-in controllers. Plain C on purpose: a plug-in needs nothing but mbs_controller.h.

    pid         u = K_p y + K_i x_I + K_d ydot,  y = r           params K_p, K_i, K_d
    pid_switch  the same with the switch-to-zero sensor           params K_p, K_i, K_d, limit
                y = r if |r| <= limit, else 0
    integrator1..3   u = K x_n, x1' = y, x2' = x1, x3' = x2       param K
    derivative1..2   u = K d_n, two backward differences          param K

  The PID's integral is exact for the first-order-hold input (trapezoid), its derivative the backward difference
  over the last step; the integrator chain integrates the linear input exactly (the spec's update order x3, x2, x1).
*/
#include "mbs_controller.h" /* as a plug-in author includes it: pkg-config --cflags mbsid */
#include <math.h>

typedef struct {
  double gain[3], limit;
  double y_prev, x_integral, y_rate;
} PidState;

static double PidSensor(const PidState *s, double r)
{
  return fabs(r) <= s->limit ? r : 0;
}

static double PidOutput(const PidState *s, double y)
{
  return s->gain[0] * y + s->gain[1] * s->x_integral + s->gain[2] * s->y_rate;
}

static double PidInitWithLimit(PidState *s, const double *p, double limit, double r0)
{
  s->gain[0]    = p[0];
  s->gain[1]    = p[1];
  s->gain[2]    = p[2];
  s->limit      = limit;
  s->y_prev     = PidSensor(s, r0);
  s->x_integral = 0;
  s->y_rate     = 0;
  return s->gain[0] * s->y_prev;
}

static double PidInit(void *state, const void *params, double t0, double r0)
{
  return PidInitWithLimit(state, params, INFINITY, r0);
}

static double PidSwitchInit(void *state, const void *params, double t0, double r0)
{
  return PidInitWithLimit(state, params, ((const double *)params)[3], r0);
}

static double PidStep(void *state, double t, double r, double dt)
{
  PidState *s = state;
  double    y = PidSensor(s, r);

  s->x_integral += dt * (s->y_prev + y) / 2;
  s->y_rate = (y - s->y_prev) / dt;
  s->y_prev = y;
  return PidOutput(s, y);
}

typedef struct {
  double gain;
  int    order;
  double y_prev, x[3]; /* x1, x2, x3 of the integrator chain, or d1, d2 of the derivative chain */
} ChainState;

static double ChainInit(void *state, const void *params, int order, double y0)
{
  ChainState *s = state;

  s->gain   = ((const double *)params)[0];
  s->order  = order;
  s->y_prev = y0;
  s->x[0] = s->x[1] = s->x[2] = 0;
  return 0;
}

static double IntegratorStep(void *state, double t, double y, double dt)
{
  ChainState  *s  = state;
  const double ya = s->y_prev, yb = y;

  s->x[2] += dt * s->x[1] + dt * dt / 2 * s->x[0] + dt * dt * dt * (3 * ya + yb) / 24;
  s->x[1] += dt * s->x[0] + dt * dt * (2 * ya + yb) / 6;
  s->x[0] += dt * (ya + yb) / 2;
  s->y_prev = y;
  return s->gain * s->x[s->order - 1];
}

static double DerivativeStep(void *state, double t, double y, double dt)
{
  ChainState  *s  = state;
  const double d1 = (y - s->y_prev) / dt;

  s->x[1]   = (d1 - s->x[0]) / dt;
  s->x[0]   = d1;
  s->y_prev = y;
  return s->gain * s->x[s->order - 1];
}

static double Integrator1Init(void *s, const void *p, double t0, double y0)
{
  return ChainInit(s, p, 1, y0);
}
static double Integrator2Init(void *s, const void *p, double t0, double y0)
{
  return ChainInit(s, p, 2, y0);
}
static double Integrator3Init(void *s, const void *p, double t0, double y0)
{
  return ChainInit(s, p, 3, y0);
}
static double Derivative1Init(void *s, const void *p, double t0, double y0)
{
  return ChainInit(s, p, 1, y0);
}
static double Derivative2Init(void *s, const void *p, double t0, double y0)
{
  return ChainInit(s, p, 2, y0);
}

static const char *const PidNames[]    = {"Kp", "Ki", "Kd", "limit"};
static const double      PidDefaults[] = {100, 20, 6, 0.7};
static const char *const GainName[]    = {"K"};
static const double      GainDefault[] = {1};

const mbs_controller_plugin *pid_controller(void)
{
  static const mbs_controller_plugin plugin = {
    MBS_CONTROLLER_ABI_VERSION, "PID, identity sensor: u = Kp y + Ki int y + Kd dy/dt", 3, PidNames, PidDefaults, {sizeof(PidState), PidInit, PidStep}
  };
  return &plugin;
}

const mbs_controller_plugin *pid_switch_controller(void)
{
  static const mbs_controller_plugin plugin = {
    MBS_CONTROLLER_ABI_VERSION, "PID, switch-to-zero sensor: y = r if |r| <= limit, else 0", 4, PidNames, PidDefaults, {sizeof(PidState), PidSwitchInit, PidStep}
  };
  return &plugin;
}

static const mbs_controller_plugin ChainPlugins[] = {
  {MBS_CONTROLLER_ABI_VERSION, "integrator chain, u = K x1 (x1' = y)",                     1, GainName, GainDefault, {sizeof(ChainState), Integrator1Init, IntegratorStep}},
  {MBS_CONTROLLER_ABI_VERSION, "integrator chain, u = K x2 (x2' = x1, x1' = y)",           1, GainName, GainDefault, {sizeof(ChainState), Integrator2Init, IntegratorStep}},
  {MBS_CONTROLLER_ABI_VERSION, "integrator chain, u = K x3 (x3' = x2, x2' = x1, x1' = y)", 1, GainName, GainDefault, {sizeof(ChainState), Integrator3Init, IntegratorStep}},
  {MBS_CONTROLLER_ABI_VERSION, "derivative chain, u = K d1 (backward difference of y)",    1, GainName, GainDefault, {sizeof(ChainState), Derivative1Init, DerivativeStep}},
  {MBS_CONTROLLER_ABI_VERSION, "derivative chain, u = K d2 (backward difference of d1)",   1, GainName, GainDefault, {sizeof(ChainState), Derivative2Init, DerivativeStep}},
};

const mbs_controller_plugin *integrator1_controller(void)
{
  return &ChainPlugins[0];
}

const mbs_controller_plugin *integrator2_controller(void)
{
  return &ChainPlugins[1];
}

const mbs_controller_plugin *integrator3_controller(void)
{
  return &ChainPlugins[2];
}

const mbs_controller_plugin *derivative1_controller(void)
{
  return &ChainPlugins[3];
}

const mbs_controller_plugin *derivative2_controller(void)
{
  return &ChainPlugins[4];
}
