module k8s.io/featureflags/hack/tools/tree

go 1.26.0
