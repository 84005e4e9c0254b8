"""The REST API of seeds: list, upload, read, and their DNA."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsViewer
from tasks_app.models import Seed
from tasks_app.seeds import services
from tasks_app.seeds.filters import SeedFilter
from tasks_app.seeds.serializers import SeedDnaOutput, SeedListOutput, SeedOutput, SeedUploadInput
from tasks_app.shared.api import refuse_unless_curator, service_call


class SeedListApi(ListAPIView):
    permission_classes = [IsViewer]
    serializer_class = SeedListOutput
    filterset_class = SeedFilter
    ordering_fields = ["name", "created_at", "n_rows", "n_features"]
    ordering = ["name"]
    queryset = Seed.objects.all()

    @extend_schema(operation_id="seeds_list", summary="List seeds")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(operation_id="seeds_upload", summary="Upload a CSV seed (curators)", request=SeedUploadInput,
                   responses={201: SeedOutput})
    def post(self, request):
        refuse_unless_curator(request, self)
        data = SeedUploadInput(data=request.data)
        data.is_valid(raise_exception=True)
        upload = data.validated_data["file"]
        seed = service_call(lambda: services.seed_create_from_upload(
            name=data.validated_data["name"], content=upload.read(), target=data.validated_data["target"],
            task_type=data.validated_data["task_type"], metric=data.validated_data["metric"], user=request.user,
        ))
        return Response(SeedOutput(seed).data, status=status.HTTP_201_CREATED)


class SeedDetailApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="seeds_retrieve", responses=SeedOutput)
    def get(self, request, name):
        return Response(SeedOutput(get_object_or_404(Seed.objects.select_related("dna"), name=name)).data)


class SeedDnaApi(APIView):
    permission_classes = [IsViewer]

    @extend_schema(operation_id="seeds_dna", summary="A seed's DNA (structural statistics, no rows)",
                   responses=SeedDnaOutput)
    def get(self, request, name):
        seed = get_object_or_404(Seed.objects.select_related("dna"), name=name)
        dna = getattr(seed, "dna", None)
        return Response(SeedDnaOutput({"seed": seed.name, "schema_version": dna.schema_version if dna else None,
                                       "dna": dna.data if dna else {}}).data)
