/*
  Nonlinear force laws of the force elements bushing, spring_damper and rotational_spring (issues 33, 34): any value of
  their stiffness or damping fields may be a law of the coordinate's deflection x (m or rad) and rate x' instead of a
  number. The force on the coordinate is g(x, x') = K(x) + D(x, x'), the generalised force -g x_q^T
  (MbsCoordinateForce; spring_damper along its line), and every coefficient and knot may be {param: NAME}.

    stiffness  k or {param: k}                        K = k x
               {polynomial: [k1, k2, ..., kn]}         K = k1 x + k2 x^2 + ... + kn x^n      k1 > 0, n <= 16
               {table: {deflection: [x_j], force: [f_j]}}
                                                       K = the not-a-knot cubic spline through (x_j, f_j), 4 <= n <= 16,
                                                       x_j increasing; beyond the ends the tangent line of the end
    damping    d or {param: d}                        D = d x'
               {amplitude: [d0, c]}                    D = d0 (1 + c x^2) x'                  d0, c >= 0
               {friction: [d0, F, v]}                  D = d0 x' + F tanh(x' / v)             d0, F >= 0, v > 0

  The spline is linear in the forces: its second derivatives at the points are M = W f with W = A^-1 B of the spline's
  equations A M = B f (continuity of the slope at the inner points, of the third derivative at x_1 and x_{n-2}:
  not-a-knot, so a cubic sampled into the table is reproduced exactly). On [x_i, x_i+1], h = x_i+1 - x_i,
  a = (x_i+1 - x) / h, b = 1 - a:

    K = a f_i + b f_i+1 + h^2/6 ((a^3 - a) M_i + (b^3 - b) M_i+1) = sum_j w_j(x) f_j

  so dK/df_j = w_j(x), and K is twice continuously differentiable inside the table, once at its ends (the tangent
  lines): dF/dq is continuous for Newton and the adjoint. The amplitude and friction laws dissipate: D x' >= 0.

  The knots x_j may be parameters too (branch tableparam), increasing on the whole box of their bounds (CheckKnots()).
  Then W and M = W f follow p (MbsForceLawsUpdate(), before every evaluation), and by d/dx_k of A M = B f

    dM/dx_k = A^-1 (dB/dx_k f - dA/dx_k M),   A linear in h (dA = A(dh)), B's entries 6/h,   dh = e_k-1 - e_k,

  while on [x_i, x_i+1] h and a move by dh_i = [k = i+1] - [k = i], da = ([k = i+1] - a dh_i) / h, so that K and its
  slope K' = (f_i+1 - f_i) / h + h/6 ((1 - 3a^2) M_i + (3b^2 - 1) M_i+1) have their derivatives by x_k (TableAt());
  beyond an end x_e the tangent K(x_e) + K'(x_e) (x - x_e) moves with x_e as well. The interval lookup stays piecewise:
  K and K' are continuous across the knots in both x and the knots, K'' and the knots' second derivatives are not (a
  time cost is once differentiable in a knot where the motion crosses it).
*/
#include "models/elements/elementimpl.h"

static const char *const StiffnessLaws[] = {"polynomial", "table"};
static const char *const DampingLaws[]   = {"amplitude", "friction"};

/*
  The table at x: the forces' weights w (K = w.f) and slopes ws (dK/dx = ws.f), and with dk not NULL the derivatives
  by each knot x_k that is a parameter, at the forces f of the last update: dK/dx_k into dk[k] and d(dK/dx)/dx_k into
  dks[k] (the others untouched). On the interval [x_i, x_i+1] the knots move h by dh = [k = i+1] - [k = i] and a by
  da = ([k = i+1] - a dh) / h, every knot the M_j (dM, TableSpline()); beyond an end e the law is the tangent
  K(x_e) + S (x - x_e) of the end's slope S, where a stays 0 or 1 and x - x_e moves with x_e.
*/
static void TableAt(const MbsForceLaw *law, PetscReal x, PetscReal w[], PetscReal ws[], PetscReal dk[], PetscReal dks[])
{
  const PetscReal *f = law->f;
  PetscInt         n = law->n, i = 0, end = -1;
  PetscReal        h, a, b, beyond = 0, Mi = 0, Mj = 0, S = 0, P, Q;

  while (i < n - 2 && x > law->x[i + 1]) i++;
  h = law->x[i + 1] - law->x[i];
  a = (law->x[i + 1] - x) / h;
  if (x < law->x[0]) end = 0; /* the tangent at x_0 */
  else if (x > law->x[n - 1]) end = n - 1;
  if (end >= 0) {
    beyond = x - law->x[end];
    a      = end ? 0 : 1;
  }
  b = 1 - a;
  for (PetscInt j = 0; j < n; j++) {
    const PetscReal Wi = law->W[i + j * n], Wj = law->W[i + 1 + j * n];

    w[j]  = (j == i) * a + (j == i + 1) * b + h * h / 6 * ((a * a * a - a) * Wi + (b * b * b - b) * Wj);
    ws[j] = ((j == i + 1) - (PetscReal)(j == i)) / h + h / 6 * ((1 - 3 * a * a) * Wi + (3 * b * b - 1) * Wj);
    w[j] += ws[j] * beyond;
    Mi += Wi * f[j];
    Mj += Wj * f[j];
    S += ws[j] * f[j];
  }
  P = (a * a * a - a) * Mi + (b * b * b - b) * Mj; /* K = a f_i + b f_i+1 + h^2/6 P + S beyond */
  Q = (1 - 3 * a * a) * Mi + (3 * b * b - 1) * Mj; /* S = (f_i+1 - f_i) / h + h/6 Q */
  for (PetscInt k = 0; k < n && dk; k++) {
    const PetscReal *dM = law->dM + k * n;
    PetscReal        dh = (k == i + 1) - (PetscReal)(k == i), da = end >= 0 ? 0 : ((k == i + 1) - a * dh) / h, db = -da, dP, dQ;

    if (law->knot[k].param < 0) continue;
    dP     = (3 * a * a - 1) * da * Mi + (3 * b * b - 1) * db * Mj + (a * a * a - a) * dM[i] + (b * b * b - b) * dM[i + 1];
    dQ     = -6 * a * da * Mi + 6 * b * db * Mj + (1 - 3 * a * a) * dM[i] + (3 * b * b - 1) * dM[i + 1];
    dks[k] = -(f[i + 1] - f[i]) * dh / (h * h) + dh / 6 * Q + h / 6 * dQ;
    dk[k]  = da * (f[i] - f[i + 1]) + h * dh / 3 * P + h * h / 6 * dP + dks[k] * beyond - S * (k == end);
  }
}

/*
  The rows of the not-a-knot spline's equations A M = B f on the intervals h (n - 1) into A and B (n x n, zeroed):
  continuity of the slope at the inner points, of the third derivative at x_1 and x_n-2. With dh, their derivatives
  along the intervals' change dh instead: A is linear in h, B's entries are +-6/h.
*/
static void SplineEquations(PetscInt n, const PetscReal h[], const PetscReal dh[], PetscReal A[], PetscReal B[])
{
  const PetscReal *l = dh ? dh : h;

  for (PetscInt i = 1; i < n - 1; i++) {
    PetscReal r0 = dh ? -6 * dh[i - 1] / (h[i - 1] * h[i - 1]) : 6 / h[i - 1], r1 = dh ? -6 * dh[i] / (h[i] * h[i]) : 6 / h[i];

    MBS_IJ(A, i, i - 1, n) = l[i - 1];
    MBS_IJ(A, i, i, n)     = 2 * (l[i - 1] + l[i]);
    MBS_IJ(A, i, i + 1, n) = l[i];
    MBS_IJ(B, i, i + 1, n) = r1;
    MBS_IJ(B, i, i, n)     = -r1 - r0;
    MBS_IJ(B, i, i - 1, n) = r0;
  }
  MBS_IJ(A, 0, 0, n)         = l[1];
  MBS_IJ(A, 0, 1, n)         = -(l[0] + l[1]);
  MBS_IJ(A, 0, 2, n)         = l[0];
  MBS_IJ(A, n - 1, n - 3, n) = l[n - 2];
  MBS_IJ(A, n - 1, n - 2, n) = -(l[n - 3] + l[n - 2]);
  MBS_IJ(A, n - 1, n - 1, n) = l[n - 3];
}

/*
  W = A^-1 B of the spline through the knots law->x and, for each knot x_k that is a parameter, the derivative of its
  M = W f at the forces law->f, from d/dx_k of A M = B f: dM_k = A^-1 (dB f - dA M), where x_k moves h_k-1 by +1 and
  h_k by -1. Returns the row of A's zero pivot, or -1.
*/
static PetscInt TableSpline(MbsForceLaw *law)
{
  PetscInt  n                            = law->n, pivots[3 * MBS_MAX_LAW], zero_pivot;
  PetscReal A[MBS_MAX_LAW * MBS_MAX_LAW] = {0}, dA[MBS_MAX_LAW * MBS_MAX_LAW], dB[MBS_MAX_LAW * MBS_MAX_LAW], h[MBS_MAX_LAW], dh[MBS_MAX_LAW], M[MBS_MAX_LAW];

  for (PetscInt i = 0; i < n * n; i++) law->W[i] = 0;
  for (PetscInt i = 0; i < n - 1; i++) h[i] = law->x[i + 1] - law->x[i];
  SplineEquations(n, h, NULL, A, law->W);
  zero_pivot = MbsDenseLUFactor(n, A, pivots);
  if (zero_pivot >= 0) return zero_pivot;
  MbsDenseLUSolve(n, A, pivots, n, law->W);
  for (PetscInt i = 0; i < n; i++) {
    M[i] = 0;
    for (PetscInt j = 0; j < n; j++) M[i] += law->W[i + j * n] * law->f[j];
  }
  for (PetscInt k = 0; k < n; k++) {
    PetscReal *dM = law->dM + k * n;

    if (law->knot[k].param < 0) continue;
    for (PetscInt i = 0; i < n - 1; i++) dh[i] = (i == k - 1) - (PetscReal)(i == k);
    for (PetscInt i = 0; i < n * n; i++) dA[i] = dB[i] = 0;
    SplineEquations(n, h, dh, dA, dB);
    for (PetscInt i = 0; i < n; i++) {
      dM[i] = 0;
      for (PetscInt j = 0; j < n; j++) dM[i] += MBS_IJ(dB, i, j, n) * law->f[j] - MBS_IJ(dA, i, j, n) * M[j];
    }
    MbsDenseLUSolve(n, A, pivots, 1, dM);
  }
  return -1;
}

/* force middle / deflection^power, e.g. "N/m^3", "N m s/rad" */
static PetscErrorCode Unit(char unit[], size_t size, const char force[], const char deflection[], const char middle[], PetscInt power)
{
  PetscFunctionBeginUser;
  if (power == 1) PetscCall(PetscSNPrintf(unit, size, "%s%s/%s", force, middle, deflection));
  else PetscCall(PetscSNPrintf(unit, size, "%s%s/%s^%" PetscInt_FMT, force, middle, deflection, power));
  PetscFunctionReturn(0);
}

/* The coefficients of the list key of item into c: exactly *n of them, or 1 to MBS_MAX_LAW with *n = 0 (then their
   number into *n), the j-th in units[j]; their nodes into nodes */
static PetscErrorCode ReadCoefficients(MbsYAMLReader *reader, void *item, const char key[], PetscInt *n, char units[][64], MbsValue c[], void *nodes[])
{
  PetscInt exact = *n;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadItems(reader, item, key, PETSC_TRUE, exact ? exact : MBS_MAX_LAW, nodes, exact ? NULL : n));
  for (PetscInt j = 0; j < *n; j++) PetscCall(MbsYAMLReadItemValue(reader, nodes[j], key, units[j], &c[j]));
  PetscFunctionReturn(0);
}

/* The knot's range on its parameter's bounds (its value when fixed), and how the messages name it */
static PetscErrorCode KnotRange(MbsDescription desc, const MbsValue *knot, const char unit[], PetscReal range[2], char text[], size_t size)
{
  PetscFunctionBeginUser;
  range[0] = range[1] = knot->value;
  if (knot->param < 0) PetscCall(PetscSNPrintf(text, size, "%g", (double)knot->value));
  else {
    range[0] = desc->param_info[knot->param].lower;
    range[1] = desc->param_info[knot->param].upper;
    PetscCall(PetscSNPrintf(text, size, "parameter '%s' in [%g, %g] %s", desc->param_info[knot->param].name, (double)range[0], (double)range[1], unit));
  }
  PetscFunctionReturn(0);
}

/* The knots must increase at every point of their parameters' bounds box: the spline needs h_j > 0 wherever TAO or
   -p_NAME may move them. Two neighbours that are different parameters or numbers are worst at a corner of their own
   two bounds; a parameter at two knots that are not neighbours is caught by a pair between them (it cannot be below
   and above the knots in between at once) */
static PetscErrorCode CheckKnots(MbsYAMLReader *reader, const char key[], const char deflection[], const MbsForceLaw *law, void *nodes[])
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);

  PetscFunctionBeginUser;
  for (PetscInt j = 1; j < law->n; j++) {
    const MbsValue *lo = &law->knot[j - 1], *hi = &law->knot[j];
    PetscReal       below[2], above[2];
    char            below_text[128], above_text[128];

    PetscCall(KnotRange(desc, lo, deflection, below, below_text, sizeof(below_text)));
    PetscCall(KnotRange(desc, hi, deflection, above, above_text, sizeof(above_text)));
    if (lo->param < 0 && hi->param < 0 && !(above[0] > below[1]))
      PetscCall(MbsYAMLError(reader, nodes[j], "%s: the table's deflections must increase, but deflection %" PetscInt_FMT " (%g) follows %g", key, j + 1, (double)above[0], (double)below[1]));
    if (lo->param >= 0 && lo->param == hi->param)
      PetscCall(
        MbsYAMLError(reader, nodes[j], "%s: deflections %" PetscInt_FMT " and %" PetscInt_FMT " of the table are the same parameter '%s', so they can never increase: give each knot its own parameter", key, j, j + 1, desc->param_info[lo->param].name));
    if (!(above[0] > below[1]))
      PetscCall(MbsYAMLError(reader, nodes[j], "%s: the table's deflections must increase for every value of their parameters within bounds, but deflection %" PetscInt_FMT " (%s) can reach deflection %" PetscInt_FMT " (%s): narrow the bounds so that they do not overlap", key, j + 1, above_text, j, below_text));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadLaw(MbsYAMLReader *reader, void *item, const char key[], PetscBool stiffness, PetscInt choice, const char force[], const char deflection[], MbsForceLaw *law)
{
  char  units[MBS_MAX_LAW][64];
  void *nodes[MBS_MAX_LAW];

  PetscFunctionBeginUser;
  law->type = stiffness ? (choice ? MBS_LAW_TABLE : MBS_LAW_POLYNOMIAL) : (choice ? MBS_LAW_FRICTION : MBS_LAW_AMPLITUDE);
  law->n    = 0;
  switch (law->type) {
  case MBS_LAW_POLYNOMIAL: /* k_j in force / deflection^j */
    for (PetscInt j = 0; j < MBS_MAX_LAW; j++) PetscCall(Unit(units[j], sizeof(units[j]), force, deflection, "", j + 1));
    PetscCall(ReadCoefficients(reader, item, "polynomial", &law->n, units, law->c, nodes));
    if (!(law->c[0].value > 0))
      PetscCall(MbsYAMLError(reader, item, "%s: the polynomial's first coefficient, its linear term k1, must be positive (the stiffness at zero deflection, which holds the initial pose and which eigen linearises), got %g", key, (double)law->c[0].value));
    break;
  case MBS_LAW_TABLE: {
    const char *const fields[] = {"deflection", "force"};
    void             *table;

    for (PetscInt j = 0; j < MBS_MAX_LAW; j++) PetscCall(PetscStrncpy(units[j], force, sizeof(units[j])));
    PetscCall(MbsYAMLReadMapping(reader, item, "table", 2, fields, &table));
    PetscCall(ReadCoefficients(reader, table, "force", &law->n, units, law->c, nodes));
    if (law->n < 4) PetscCall(MbsYAMLError(reader, table, "%s: a table needs at least 4 points (a cubic spline), got %" PetscInt_FMT, key, law->n));
    for (PetscInt j = 0; j < MBS_MAX_LAW; j++) PetscCall(PetscStrncpy(units[j], deflection, sizeof(units[j])));
    PetscCall(ReadCoefficients(reader, table, "deflection", &law->n, units, law->knot, nodes));
    PetscCall(CheckKnots(reader, key, deflection, law, nodes));
    for (PetscInt j = 0; j < law->n; j++) {
      law->x[j]  = law->knot[j].value;
      law->f[j]  = law->c[j].value;
      law->moves = (PetscBool)(law->moves || law->knot[j].param >= 0);
    }
    PetscCheck(TableSpline(law) < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The spline's equations are singular at increasing knots");
  } break;
  default: { /* d0 in force s / deflection, then c [1/deflection^2], or F [force] and v [deflection/s] */
    PetscBool friction = (PetscBool)(law->type == MBS_LAW_FRICTION);

    PetscCall(Unit(units[0], sizeof(units[0]), force, deflection, " s", 1));
    if (friction) {
      PetscCall(PetscStrncpy(units[1], force, sizeof(units[1])));
      PetscCall(PetscSNPrintf(units[2], sizeof(units[2]), "%s/s", deflection));
    } else PetscCall(Unit(units[1], sizeof(units[1]), "1", deflection, "", 2));
    law->n = friction ? 3 : 2;
    PetscCall(ReadCoefficients(reader, item, DampingLaws[choice], &law->n, units, law->c, nodes));
    for (PetscInt j = 0; j < law->n; j++)
      if (law->c[j].value < 0 || (j == 2 && !(law->c[j].value > 0)))
        PetscCall(MbsYAMLError(reader, item, "%s: the %s law's coefficient %" PetscInt_FMT " must be %s, got %g", key, DampingLaws[choice], j + 1, j == 2 ? "positive (a speed)" : "non-negative (no negative damping)", (double)law->c[j].value));
  } break;
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsForceLawsRead - Reads key of the mapping node being read: n values (1 to n with count not NULL) of a force
  element's stiffness (a law of stiffness_laws) or damping, into el->value[first + i] or el->law[first + i]. force and
  deflection are the units of the coordinate's force and deflection ("N", "m" or "N m", "rad"). Not collective.
@*/
PetscErrorCode MbsForceLawsRead(MbsYAMLReader *reader, void *node, const char key[], PetscBool stiffness, const char force[], const char deflection[], PetscBool required, PetscInt n, MbsElement *el, PetscInt first, PetscInt *count)
{
  void    *item[12];
  char     unit[64];
  PetscInt m = 0;

  PetscFunctionBeginUser;
  PetscCall(Unit(unit, sizeof(unit), force, deflection, stiffness ? "" : " s", 1));
  PetscCall(MbsYAMLReadItems(reader, node, key, required, n, item, count ? count : &m));
  for (PetscInt i = 0; i < (count ? *count : m); i++) {
    PetscInt choice;

    PetscCall(MbsYAMLReadChoice(reader, item[i], key, 2, stiffness ? StiffnessLaws : DampingLaws, &choice));
    if (choice < 0) {
      PetscCall(MbsYAMLReadItemValue(reader, item[i], key, unit, &el->value[first + i]));
      continue;
    }
    if (!el->law) PetscCall(PetscCalloc1(MBS_MAX_VALUE, &el->law));
    PetscCall(ReadLaw(reader, item[i], key, stiffness, choice, force, deflection, &el->law[first + i]));
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsForceLawsUpdate - Moves the knots of el's tables that are parameters to desc->p: the spline's W and dM/dx_k rebuilt
  when a knot or a force changed since the last call (before every evaluation, as MbsGeometryUpdate()). CheckKnots()
  keeps the knots increasing on the parameters' bounds, so A is regular. Not collective.
@*/
void MbsForceLawsUpdate(MbsDescription desc, MbsElement *el)
{
  for (PetscInt i = 0; i < MBS_MAX_VALUE && el->law; i++) {
    MbsForceLaw *law   = &el->law[i];
    PetscBool    moved = PETSC_FALSE;

    if (!law->moves) continue;
    for (PetscInt j = 0; j < law->n; j++) {
      PetscReal x = MbsValueOf(&law->knot[j], desc->p), f = MbsValueOf(&law->c[j], desc->p);

      moved     = (PetscBool)(moved || x != law->x[j] || f != law->f[j]);
      law->x[j] = x;
      law->f[j] = f;
    }
    if (moved) (void)TableSpline(law);
  }
}

/*@C
  MbsForceLawKnot - Whether parameter j (any parameter with j < 0) is a knot of one of el's tables. Not collective.
@*/
PetscBool MbsForceLawKnot(const MbsElement *el, PetscInt j)
{
  for (PetscInt i = 0; i < MBS_MAX_VALUE && el->law; i++)
    for (PetscInt k = 0; el->law[i].moves && k < el->law[i].n; k++)
      if (el->law[i].knot[k].param >= 0 && (j < 0 || el->law[i].knot[k].param == j)) return PETSC_TRUE;
  return PETSC_FALSE;
}

PetscBool MbsForceLawActive(const MbsElement *el, PetscInt i)
{
  return (PetscBool)(i >= 0 && el->law && el->law[i].type != MBS_LAW_LINEAR);
}

static void AddParameter(MbsLawForce *f, const MbsValue *value, PetscReal dg)
{
  if (value->param < 0) return;
  f->param[f->np]  = value->param;
  f->dgdp[f->np++] = dg;
}

/*
  MbsForceLawEval - g(x, x') = K(x) + D(x, x') of the stiffness el->value/law[ik] and the damping el->value/law[id]
  (either index may be -1: none), with dg/dx, dg/dx' and dg/dp. Not collective.
*/
void MbsForceLawEval(MbsDescription desc, const MbsElement *el, PetscInt ik, PetscInt id, PetscReal x, PetscReal rate, MbsLawForce *f)
{
  const PetscReal *p = desc->p;

  f->g = f->gx = f->gv = 0;
  f->np                = 0;
  for (PetscInt s = 0; s < 2; s++) {
    PetscInt           i   = s ? id : ik;
    const MbsForceLaw *law = MbsForceLawActive(el, i) ? &el->law[i] : NULL;
    const MbsValue    *c   = law ? law->c : NULL;

    if (i < 0) continue;
    if (!law) { /* linear: k x or d x' */
      PetscReal k = MbsValueOf(&el->value[i], p), y = s ? rate : x;

      f->g += k * y;
      if (s) f->gv += k;
      else f->gx += k;
      AddParameter(f, &el->value[i], y);
      continue;
    }
    switch (law->type) {
    case MBS_LAW_POLYNOMIAL: {
      PetscReal power = 1; /* x^(j-1) */

      for (PetscInt j = 0; j < law->n; j++) {
        PetscReal k = MbsValueOf(&c[j], p);

        f->gx += (j + 1) * k * power;
        power *= x;
        f->g += k * power;
        AddParameter(f, &c[j], power);
      }
    } break;
    case MBS_LAW_TABLE: {
      PetscReal w[MBS_MAX_LAW], ws[MBS_MAX_LAW], dk[MBS_MAX_LAW], dks[MBS_MAX_LAW];

      TableAt(law, x, w, ws, law->moves ? dk : NULL, dks);
      for (PetscInt j = 0; j < law->n; j++) {
        PetscReal fj = MbsValueOf(&c[j], p);

        f->g += w[j] * fj;
        f->gx += ws[j] * fj;
        AddParameter(f, &c[j], w[j]);
        if (law->knot[j].param >= 0) AddParameter(f, &law->knot[j], dk[j]);
      }
    } break;
    case MBS_LAW_AMPLITUDE: {
      PetscReal d0 = MbsValueOf(&c[0], p), a = MbsValueOf(&c[1], p), shape = 1 + a * x * x;

      f->g += d0 * shape * rate;
      f->gx += 2 * d0 * a * x * rate;
      f->gv += d0 * shape;
      AddParameter(f, &c[0], shape * rate);
      AddParameter(f, &c[1], d0 * x * x * rate);
    } break;
    case MBS_LAW_FRICTION: {
      PetscReal d0 = MbsValueOf(&c[0], p), F = MbsValueOf(&c[1], p), v = MbsValueOf(&c[2], p), th = PetscTanhReal(rate / v), sech2 = 1 - th * th;

      f->g += d0 * rate + F * th;
      f->gv += d0 + F * sech2 / v;
      AddParameter(f, &c[0], rate);
      AddParameter(f, &c[1], th);
      AddParameter(f, &c[2], -F * sech2 * rate / (v * v));
    } break;
    case MBS_LAW_LINEAR:
      break;
    }
  }
}

/* F += g s_q^T and Jp += g_p s_q^T of a coordinate force (either may be NULL) */
static void AddForce(MbsDescription desc, const MbsLawForce *g, const PetscReal grad[], PetscReal F[], PetscReal Jp[], PetscInt ld)
{
  for (PetscInt i = 0; i < desc->nq; i++) {
    if (F) F[i] += g->g * grad[i];
    for (PetscInt k = 0; k < g->np && Jp; k++) Jp[i + g->param[k] * ld] += g->dgdp[k] * grad[i];
  }
}

/*
  The force g(s, s') of the stiffness ik and damping id of el (values or laws, force_law.c) on a scalar coordinate s(q)
  with gradient s_q and Hessian s_qq (dense; the damper on s' = s_q v): the generalised force is f = -g s_q^T, so

    -f = g s_q^T,  -df/dq = s_q^T (g_s s_q + g_s' (s_qq v)^T) + g s_qq,  -df/dv = g_s' s_q^T s_q,  -df/dp = g_p s_q^T

  (linear: g = k s + d s', a Rayleigh damper whose force is the derivative of d s'^2 / 2). F, Jq, Jv, Jp as
  MbsElementForceFn; only Jq needs s_qq, and only on the view's support, so hess may be NULL without it (a residual
  then skips the nq^2 work). Bilinear coordinates have MbsRowForces(), which needs no s_qq. Scratch: desc->work +
  3 nq^2 + 3 nq (nq).
*/
void MbsCoordinateForce(MbsDescription desc, const MbsElement *el, PetscInt ik, PetscInt id, PetscReal s, const PetscReal grad[], const PetscReal hess[], const PetscReal v[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld)
{
  PetscInt    nq = desc->nq, m = MbsSupportSize(desc);
  PetscReal   rate = 0, *hv = desc->work + 3 * nq * nq + 3 * nq; /* after the scratch of the elements */
  MbsLawForce g;

  for (PetscInt i = 0; i < nq; i++) rate += grad[i] * v[i];
  MbsForceLawEval(desc, el, ik, id, s, rate, &g);
  AddForce(desc, &g, grad, F, Jp, ld);
  for (PetscInt ii = 0; ii < m && Jq; ii++) { /* grad and hess vanish outside the support */
    PetscInt  i   = MbsSupportAt(desc, ii);
    PetscReal sum = 0;

    for (PetscInt jj = 0; jj < m; jj++) sum += hess[i + MbsSupportAt(desc, jj) * nq] * v[MbsSupportAt(desc, jj)];
    hv[i] = sum;
  }
  for (PetscInt jj = 0; jj < m && (Jq || Jv); jj++) {
    PetscInt  j = MbsSupportAt(desc, jj);
    PetscReal w = Jq ? g.gx * grad[j] + g.gv * hv[j] : 0;

    for (PetscInt ii = 0; ii < m; ii++) {
      PetscInt i = MbsSupportAt(desc, ii);

      if (Jq) Jq[i + j * ld] += grad[i] * w + g.g * hess[i + j * nq];
      if (Jv) Jv[i + j * ld] += g.gv * grad[i] * grad[j];
    }
  }
}

/*@C
  MbsRowForcesBatch - The most coordinates MbsRowForces() takes at once on the view desc, with its grad and work in
  desc->work after the caller's first nq: 3 on a point mass alone (nq = 3), 8 on a rigid body, 12 on two. Not collective.
@*/
PetscInt MbsRowForcesBatch(MbsDescription desc)
{
  PetscInt nq = desc->nq, ns = nq / 3;

  return (3 * nq * nq + 2 * nq) / (3 * nq + ns * ns + 1); /* 3 nq^2 + 4 nq in all: nq + n nq + n (2 nq + ns^2 + 1) + nq */
}

/*
  MbsRowForces - MbsCoordinateForce() on n bilinear coordinates s_r = el->row[row[r]] (kinematics.c) with the stiffness
  ik[r] and damping id[r] each, at most MbsRowForcesBatch(): their values into s and gradients into grad (n x nq, row r
  at grad + r nq), which the caller may read after. A bilinear Hessian is constant and s_qq = C (x) I3 on the view's
  (slot, component) pairs (MbsBilinearAddSlotHessian()), so C (nq/3 x nq/3) stands for the nq x nq matrix, which is
  never formed: s_qq v from C, g s_qq on the diagonals of the 3 x 3 blocks. Jq and Jv are then summed over the n
  coordinates entry by entry, each loaded and stored once, not once per coordinate: an entry receives the same terms in
  the same order as from MbsCoordinateForce() coordinate after coordinate, so the two agree to the last bit (but for the
  sign of a zero). The support of row forces is whole slots (MbsBilinearMark()), and the blocks run over it. work:
  n (2 nq + nq^2/9 + 1) + nq. Not collective.
*/
void MbsRowForces(MbsDescription desc, const MbsElement *el, PetscInt n, const PetscInt row[], const PetscInt ik[], const PetscInt id[], const PetscReal q[], const PetscReal v[], PetscReal s[], PetscReal grad[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld, PetscReal work[])
{
  PetscInt   nq = desc->nq, ns = nq / 3, m = MbsSupportSize(desc);
  PetscReal *u = work, *w = u + n * nq, *C = w + n * nq, *g = C + n * ns * ns, *hv = g + n;

  for (PetscInt r = 0; r < n; r++) {
    PetscReal  *gr = grad + r * nq, *Cr = C + r * ns * ns, rate = 0;
    MbsLawForce law;

    for (PetscInt i = 0; i < nq; i++) gr[i] = 0;
    s[r] = MbsBilinearAddGradient(desc, &el->row[row[r]], q, 1, gr, 1);
    for (PetscInt i = 0; i < nq; i++) rate += gr[i] * v[i];
    MbsForceLawEval(desc, el, ik[r], id[r], s[r], rate, &law);
    AddForce(desc, &law, gr, F, Jp, ld);
    for (PetscInt i = 0; i < nq && Jv; i++) u[r * nq + i] = law.gv * gr[i];
    if (!Jq) continue;
    for (PetscInt k = 0; k < ns * ns; k++) Cr[k] = 0;
    MbsBilinearAddSlotHessian(desc, &el->row[row[r]], 1, Cr, ns);
    for (PetscInt a = 0; a < ns; a++) { /* (s_qq v)_i, i = 3 a + k, summed as MbsCoordinateForce() sums, without its zeros */
      PetscReal x0 = 0, x1 = 0, x2 = 0;

      for (PetscInt b = 0; b < ns; b++) {
        x0 += Cr[a + b * ns] * v[3 * b];
        x1 += Cr[a + b * ns] * v[3 * b + 1];
        x2 += Cr[a + b * ns] * v[3 * b + 2];
      }
      hv[3 * a]     = x0;
      hv[3 * a + 1] = x1;
      hv[3 * a + 2] = x2;
    }
    for (PetscInt i = 0; i < nq; i++) w[r * nq + i] = law.gx * gr[i] + law.gv * hv[i];
    g[r] = law.g;
  }
  for (PetscInt jj = 0; jj < m && (Jq || Jv); jj += 3)
    for (PetscInt ii = 0; ii < m; ii += 3) { /* the 3 x 3 block at slots (i/3, j/3), column by column, the coordinates in turn */
      PetscInt i = MbsSupportAt(desc, ii), j = MbsSupportAt(desc, jj), ab = i / 3 + (j / 3) * ns;

      for (PetscInt c = 0; c < 3 && Jq; c++) { /* g s_qq on the block's diagonal */
        PetscReal *column = Jq + i + (j + c) * ld, x0 = column[0], x1 = column[1], x2 = column[2];

        for (PetscInt r = 0; r < n; r++) {
          const PetscReal *gi = grad + r * nq + i, wc = w[r * nq + j + c], h = g[r] * C[r * ns * ns + ab];

          x0 += gi[0] * wc + (c == 0) * h;
          x1 += gi[1] * wc + (c == 1) * h;
          x2 += gi[2] * wc + (c == 2) * h;
        }
        column[0] = x0;
        column[1] = x1;
        column[2] = x2;
      }
      for (PetscInt c = 0; c < 3 && Jv; c++) {
        PetscReal *column = Jv + i + (j + c) * ld, x0 = column[0], x1 = column[1], x2 = column[2];

        for (PetscInt r = 0; r < n; r++) {
          const PetscReal *ui = u + r * nq + i, gc = grad[r * nq + j + c];

          x0 += ui[0] * gc;
          x1 += ui[1] * gc;
          x2 += ui[2] * gc;
        }
        column[0] = x0;
        column[1] = x1;
        column[2] = x2;
      }
    }
}

/*
  MbsCoordinateForceP - The column -df/dp_j of MbsCoordinateForce for a parameter that moves the coordinate itself (a
  point's coordinate, geometry.c), s_p = ds/dp_j and grad_p = d s_q/dp_j, added into Jpj (nq):

    -df/dp_j = (g_s s_p + g_s' grad_p.v) s_q^T + g grad_p^T

  Not collective.
*/
void MbsCoordinateForceP(MbsDescription desc, const MbsElement *el, PetscInt ik, PetscInt id, PetscReal s, const PetscReal grad[], const PetscReal v[], PetscReal s_p, const PetscReal grad_p[], PetscReal Jpj[])
{
  PetscInt    nq   = desc->nq;
  PetscReal   rate = 0, rate_p = 0;
  MbsLawForce g;

  for (PetscInt i = 0; i < nq; i++) {
    rate += grad[i] * v[i];
    rate_p += grad_p[i] * v[i];
  }
  MbsForceLawEval(desc, el, ik, id, s, rate, &g);
  for (PetscInt i = 0; i < nq; i++) Jpj[i] += (g.gx * s_p + g.gv * rate_p) * grad[i] + g.g * grad_p[i];
}

/* The forces' weights of the curvature d2K/dx2 = wss.f at x: the spline's M interpolated, zero beyond the ends */
static void TableCurvature(const MbsForceLaw *law, PetscReal x, PetscReal wss[])
{
  PetscInt  n = law->n, i = 0;
  PetscReal a;

  while (i < n - 2 && x > law->x[i + 1]) i++;
  a = (law->x[i + 1] - x) / (law->x[i + 1] - law->x[i]);
  for (PetscInt j = 0; j < n; j++) wss[j] = x < law->x[0] || x > law->x[n - 1] ? 0 : a * law->W[i + j * n] + (1 - a) * law->W[i + 1 + j * n];
}

/* [value is parameter j] */
static PetscReal Is(const MbsValue *value, PetscInt j)
{
  return (PetscReal)(value->param >= 0 && value->param == j);
}

/*
  MbsForceLawSecond - The derivatives of g_x and g_x' of MbsForceLawEval along (x, x', p) + eps (dx, drate, e_j): the
  second derivatives g_xx dx + g_xx' drate + g_xp_j into dgx and g_x'x dx + g_x'x' drate + g_x'p_j into dgv. Not collective.
*/
void MbsForceLawSecond(MbsDescription desc, const MbsElement *el, PetscInt ik, PetscInt id, PetscReal x, PetscReal rate, PetscReal dx, PetscReal drate, PetscInt j, PetscReal *dgx, PetscReal *dgv)
{
  const PetscReal *p = desc->p;

  *dgx = *dgv = 0;
  for (PetscInt s = 0; s < 2; s++) {
    PetscInt           i   = s ? id : ik;
    const MbsForceLaw *law = MbsForceLawActive(el, i) ? &el->law[i] : NULL;
    const MbsValue    *c   = law ? law->c : NULL;

    if (i < 0) continue;
    if (!law) { /* k x or d x': only the parameter's */
      if (s) *dgv += Is(&el->value[i], j);
      else *dgx += Is(&el->value[i], j);
      continue;
    }
    switch (law->type) {
    case MBS_LAW_POLYNOMIAL: {        /* g_x = sum_k (k + 1) c_k x^k */
      PetscReal power = 1, lower = 0; /* x^k, x^(k-1) */

      for (PetscInt k = 0; k < law->n; k++) {
        *dgx += (k + 1) * (k * MbsValueOf(&c[k], p) * lower * dx + Is(&c[k], j) * power);
        lower = power;
        power *= x;
      }
    } break;
    case MBS_LAW_TABLE: {
      PetscReal w[MBS_MAX_LAW], ws[MBS_MAX_LAW], wss[MBS_MAX_LAW], dk[MBS_MAX_LAW], dks[MBS_MAX_LAW];

      TableAt(law, x, w, ws, law->moves ? dk : NULL, dks);
      TableCurvature(law, x, wss);
      for (PetscInt k = 0; k < law->n; k++) *dgx += wss[k] * MbsValueOf(&c[k], p) * dx + Is(&c[k], j) * ws[k] + (Is(&law->knot[k], j) ? dks[k] : 0); /* dks only of the knots that are parameters */
    } break;
    case MBS_LAW_AMPLITUDE: { /* g_x = 2 d0 a x x', g_x' = d0 (1 + a x^2) */
      PetscReal d0 = MbsValueOf(&c[0], p), a = MbsValueOf(&c[1], p);

      *dgx += 2 * d0 * a * (rate * dx + x * drate) + 2 * x * rate * (a * Is(&c[0], j) + d0 * Is(&c[1], j));
      *dgv += 2 * d0 * a * x * dx + (1 + a * x * x) * Is(&c[0], j) + d0 * x * x * Is(&c[1], j);
    } break;
    case MBS_LAW_FRICTION: { /* g_x' = d0 + F sech^2(x'/v) / v */
      PetscReal F = MbsValueOf(&c[1], p), v = MbsValueOf(&c[2], p), th = PetscTanhReal(rate / v), sech2 = 1 - th * th;

      *dgv += -2 * F * sech2 * th / (v * v) * drate + Is(&c[0], j) + sech2 / v * Is(&c[1], j) + F * sech2 * (2 * th * rate / (v * v * v) - 1 / (v * v)) * Is(&c[2], j);
    } break;
    case MBS_LAW_LINEAR:
      break;
    }
  }
}

/*
  MbsCoordinateForceSecond - The second derivatives (MbsElementForceSecondFn) of MbsCoordinateForce on the coordinate s
  with gradient grad, Hessian hess and hess' = d/deps hess (third, NULL: zero; a bilinear s whose maps p_j moves has
  the constant d hess/dp_j there), ds_p = ds/dp_j (a free length, a moved point), grad_p = d grad/dp_j (a moved point,
  geometry.c; NULL: zero). With a = hess sq + grad_p and h = hess v (g, g_x, g_x' and their derivatives dg, dgx, dgv
  along the direction):

    ds = grad.sq + ds_p,  ds' = a.v + grad.sv,  dg = g_x ds + g_x' ds' + g_p_j,
    Dq += a (g_x grad + g_x' h)^T + grad (dgx grad + g_x a + dgv h + g_x' (hess' v + hess sv))^T + dg hess + g hess'
    Dv += dgv grad grad^T + g_x' (a grad^T + grad a^T)

  work: 3 nq. Not collective.
*/
void MbsCoordinateForceSecond(MbsDescription desc, const MbsElement *el, PetscInt ik, PetscInt id, PetscReal s, PetscReal ds_p, const PetscReal grad_p[], const PetscReal grad[], const PetscReal hess[], const PetscReal third[], const PetscReal v[], const PetscReal sq[], const PetscReal sv[], PetscInt j, PetscReal Dq[], PetscReal Dv[], PetscInt ld, PetscReal work[])
{
  PetscInt    nq = desc->nq;
  PetscReal  *a = work, *h = work + nq, *dh = work + 2 * nq, rate = 0, ds = ds_p, drate = 0, dg, dgx, dgv;
  MbsLawForce g;

  for (PetscInt i = 0; i < nq; i++) {
    a[i] = grad_p ? grad_p[i] : 0;
    h[i] = dh[i] = 0;
    for (PetscInt k = 0; k < nq; k++) {
      a[i] += hess[i + k * nq] * sq[k];
      h[i] += hess[i + k * nq] * v[k];
      dh[i] += hess[i + k * nq] * sv[k] + (third ? third[i + k * nq] * v[k] : 0);
    }
  }
  for (PetscInt i = 0; i < nq; i++) {
    rate += grad[i] * v[i];
    ds += grad[i] * sq[i];
    drate += a[i] * v[i] + grad[i] * sv[i];
  }
  MbsForceLawEval(desc, el, ik, id, s, rate, &g);
  MbsForceLawSecond(desc, el, ik, id, s, rate, ds, drate, j, &dgx, &dgv);
  dg = g.gx * ds + g.gv * drate;
  for (PetscInt k = 0; k < g.np; k++) dg += g.param[k] == j ? g.dgdp[k] : 0;
  for (PetscInt k = 0; k < nq; k++)
    for (PetscInt i = 0; i < nq; i++) {
      Dq[i + k * ld] += a[i] * (g.gx * grad[k] + g.gv * h[k]) + grad[i] * (dgx * grad[k] + g.gx * a[k] + dgv * h[k] + g.gv * dh[k]) + dg * hess[i + k * nq] + (third ? g.g * third[i + k * nq] : 0);
      Dv[i + k * ld] += dgv * grad[i] * grad[k] + g.gv * (a[i] * grad[k] + grad[i] * a[k]);
    }
}
