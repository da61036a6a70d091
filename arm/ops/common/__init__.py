"""Building blocks shared by the op files of arm/ops/: the registry, support rules, emitters of op families."""
