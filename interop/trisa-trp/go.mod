module wallet-service/interop/trisa-trp

go 1.22

require github.com/trisacrypto/trisa v1.1.1

require (
	github.com/bombsimon/tld-validator v1.2.31 // indirect
	github.com/google/uuid v1.6.0 // indirect
	golang.org/x/crypto v0.23.0 // indirect
	golang.org/x/net v0.25.0 // indirect
	golang.org/x/sys v0.20.0 // indirect
	golang.org/x/text v0.15.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20240521202816-d264139d666e // indirect
	google.golang.org/grpc v1.64.0 // indirect
	google.golang.org/protobuf v1.34.1 // indirect
	software.sslmate.com/src/go-pkcs12 v0.4.0 // indirect
)
