/*
  Element spherical: a point of body a and a point of body b coincide, Phi = P_b(q) - P_a(q) = 0 (3 rows, linear in q).
  Fields: bodies: [a, b], point (ground coordinates at the initial pose; its coordinates may be parameters, which move
  it on both bodies: geometry.c) or point_a, point_b (body coordinates).
*/
#include "models/elements/elementimpl.h"

/* The three rows e_k . (P_b - P_a) = 0 of the points el->vector, the first rows of the joints that hold two points
   together (they follow the points: geometry.c) */
void MbsJointPointRows(MbsDescription desc, MbsElement *el)
{
  MbsVectorMap d;

  MbsElementPointDifference(desc, el, &d);
  for (PetscInt k = 0; k < 3; k++) {
    MbsVectorMap e;
    PetscReal    unit[3] = {0, 0, 0};

    unit[k] = 1;
    MbsMapConstant(unit, &e);
    MbsBilinearProduct(&e, &d, 1, MbsElementNewRow(el));
  }
  el->npoint_row = el->nrow;
}

static PetscErrorCode SphericalRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointPoints(reader, node, el, el->vector));
  MbsJointPointRows(MbsYAMLReaderDescription(reader), el);
  PetscFunctionReturn(0);
}

static const MbsElementType Spherical = {MBS_ELEMENT_CONSTRAINT, SphericalRead, NULL, NULL, NULL, PETSC_FALSE, NULL, NULL, NULL, PETSC_TRUE, MbsJointPointsMoved};

PetscErrorCode MbsElementGetType_Spherical(const MbsElementType **type)
{
  *type = &Spherical;
  return 0;
}
