module k8s.io/featureflags/hack/tools/shape

go 1.26.0
