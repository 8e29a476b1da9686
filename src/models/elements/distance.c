/*
  Element distance: a massless rod of length L between a point of body a and a point of body b,
  (P_b - P_a).(P_b - P_a) - L^2 = 0 (1 row). Fields: bodies: [a, b], point_a, point_b (body coordinates), length [m]
  (default: the distance at the initial pose; it must not be zero). The length and the points' coordinates may be
  parameters: the row moves with them (DistanceRows), and the model starts from the consistent pose nearest the
  file's (model_described.c, "the start of a moved joint").
*/
#include "models/elements/elementimpl.h"

/* The row at the current points and length: d.d - L^2, d = P_b - P_a */
static void DistanceRows(MbsDescription desc, MbsElement *el)
{
  PetscReal    length = MbsValueOf(&el->value[0], desc->p);
  MbsVectorMap d;

  MbsElementPointDifference(desc, el, &d);
  el->row[0] = (MbsBilinear){0};
  MbsBilinearProduct(&d, &d, 1, &el->row[0]);
  el->row[0].c = -length * length;
}

/* dPhi/dp_j = 2 d.D_j - 2 L dL/dp_j, D_j = d(P_b - P_a)/dp_j */
static PetscBool DistanceRowP(MbsDescription desc, const MbsElement *el, PetscInt i, PetscInt j, MbsBilinear *drow)
{
  MbsVectorMap D;
  PetscBool    point = MbsGeometryDifferenceDerivative(desc, el, j, &D), length = (PetscBool)(el->value[0].param == j);

  *drow = (MbsBilinear){0};
  if (i || !(point || length)) return PETSC_FALSE;
  if (point) MbsBilinearProduct(&el->row[0].a[0], &D, 2, drow);
  if (length) drow->c = -2 * (desc->p ? desc->p[j] : el->value[0].value); /* the sparsity patterns ask before the model has p */
  return PETSC_TRUE;
}

static PetscErrorCode DistanceRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscReal      x[3];
  MbsVectorMap   d;
  PetscInt       count;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointPoints(reader, node, el, el->vector));
  MbsElementPointDifference(desc, el, &d);
  MbsBilinearProduct(&d, &d, 1, MbsElementNewRow(el));
  MbsMapInitial(desc, &d, x);
  PetscCall(MbsYAMLReadValues(reader, node, "length", "m", PETSC_FALSE, 1, &el->value[0], &count));
  if (!count) el->value[0].value = PetscSqrtReal(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
  if (!(el->value[0].value > 0) || (el->value[0].param >= 0 && !(desc->param_info[el->value[0].param].lower > 0)))
    PetscCall(MbsYAMLError(reader, node, "a distance joint needs a positive length%s", el->value[0].param >= 0 ? " (and so the lower bound of its parameter)" : " (its points coincide at the initial pose)"));
  el->row[0].c = -el->value[0].value * el->value[0].value;
  if (el->ngeometry || el->value[0].param >= 0) el->row_p = DistanceRowP;
  PetscFunctionReturn(0);
}

static const MbsElementType Distance = {MBS_ELEMENT_CONSTRAINT, DistanceRead, NULL, NULL, NULL, PETSC_FALSE, NULL, NULL, NULL, PETSC_TRUE, DistanceRows};

PetscErrorCode MbsElementGetType_Distance(const MbsElementType **type)
{
  *type = &Distance;
  return 0;
}
