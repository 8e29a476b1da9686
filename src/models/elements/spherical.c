/*
  Element spherical: a point of body a and a point of body b coincide, Phi = P_b(q) - P_a(q) = 0 (3 rows, linear in q).
  Fields: bodies: [a, b], point (ground coordinates at the initial pose) or point_a, point_b (body coordinates).
*/
#include "models/elements/elementimpl.h"

/* The three rows e_k . (P_b - P_a) = 0, the first rows of the joints that hold two points together */
void MbsJointPointRows(MbsDescription desc, MbsElement *el, const PetscReal local[2][3])
{
  MbsVectorMap pa, pb, d;

  MbsMapPoint(desc, el->body[0], local[0], &pa);
  MbsMapPoint(desc, el->body[1], local[1], &pb);
  MbsMapDifference(&pb, &pa, &d);
  for (PetscInt k = 0; k < 3; k++) {
    MbsVectorMap e;
    PetscReal    unit[3] = {0, 0, 0};

    unit[k] = 1;
    MbsMapConstant(unit, &e);
    MbsBilinearProduct(&e, &d, 1, MbsElementNewRow(el));
  }
}

static PetscErrorCode SphericalRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  PetscReal local[2][3];

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointPoints(reader, node, el, local));
  MbsJointPointRows(MbsYAMLReaderDescription(reader), el, local);
  PetscFunctionReturn(0);
}

static const MbsElementType Spherical = {MBS_ELEMENT_CONSTRAINT, SphericalRead, NULL, NULL, NULL, PETSC_FALSE, NULL, NULL, NULL, PETSC_FALSE, NULL};

PetscErrorCode MbsElementGetType_Spherical(const MbsElementType **type)
{
  *type = &Spherical;
  return 0;
}
