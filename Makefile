# Shortcuts for the two scripts the README documents.
.PHONY: run test clean
run:
	./run.sh
test:
	./test.sh
clean:
	rm -rf .venv results
